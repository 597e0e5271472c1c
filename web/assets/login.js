// The sign-in page: posts the token to /api/login, which answers with an
// HttpOnly, SameSite=Strict cookie, then loads the page.
"use strict";
document.getElementById("login").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const err = document.getElementById("error");
  err.textContent = "";
  const res = await fetch("/api/login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token: document.getElementById("token").value }),
  });
  if (res.ok) {
    location.reload();
    return;
  }
  let msg = res.statusText;
  try { msg = (await res.json()).error.message; } catch (e) { /* not JSON */ }
  err.textContent = msg;
});
