package models

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/noema-mem/noema"
)

func fakeModel(files map[string][]byte) Model {
	m := Model{Name: "tiny", Repo: "org/tiny", Revision: "0123456789abcdef0123456789abcdef01234567"}
	for _, p := range []string{"config.json", "1_Pooling/config.json", "model.safetensors"} {
		b, ok := files[p]
		if !ok {
			continue
		}
		s := sha256.Sum256(b)
		m.Files = append(m.Files, File{Path: p, Size: int64(len(b)), SHA256: hex.EncodeToString(s[:])})
	}
	return m
}

// hub serves files under /org/tiny/resolve/REV/, honouring Range; cut, when
// positive, closes the connection after that many body bytes of the big file.
type hub struct {
	files    map[string][]byte
	cut      atomic.Int64
	requests atomic.Int64
	ranges   atomic.Int64
}

func (h *hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.requests.Add(1)
	p := strings.TrimPrefix(r.URL.Path, "/org/tiny/resolve/0123456789abcdef0123456789abcdef01234567/")
	b, ok := h.files[p]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if r.Header.Get("Range") != "" {
		h.ranges.Add(1)
	}
	if cut := h.cut.Load(); cut > 0 && p == "model.safetensors" && r.Header.Get("Range") == "" {
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		w.WriteHeader(http.StatusOK)
		w.Write(b[:cut])
		w.(http.Flusher).Flush()
		// Hijack and close: the client sees a short body.
		if hj, ok := w.(http.Hijacker); ok {
			c, _, err := hj.Hijack()
			if err == nil {
				c.Close()
			}
		}
		return
	}
	http.ServeContent(w, r, p, time.Time{}, bytes.NewReader(b))
}

// serveHub serves files for the rest of the test; it returns the hub and its
// base URL.
func serveHub(t *testing.T, files map[string][]byte) (*hub, string) {
	h := &hub{files: files}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv.URL
}

func testFiles() map[string][]byte {
	big := make([]byte, 3<<20+17)
	for i := range big {
		big[i] = byte(i*7 + i>>9)
	}
	return map[string][]byte{
		"config.json":           []byte(`{"model_type":"bert"}`),
		"1_Pooling/config.json": []byte(`{"pooling_mode_mean_tokens":true}`),
		"model.safetensors":     big,
	}
}

func TestPull(t *testing.T) {
	files := testFiles()
	h, url := serveHub(t, files)
	m := fakeModel(files)
	dir := filepath.Join(t.TempDir(), "tiny")
	var last, calls int64
	res, err := Pull(context.Background(), m, dir, PullOptions{BaseURL: url, Progress: func(done, total int64) {
		if total != m.Size() || done < last || done > total {
			t.Errorf("progress %d/%d after %d", done, total, last)
		}
		last = done
		calls++
	}})
	if err != nil {
		t.Fatal(err)
	}
	if last != m.Size() || calls < 3 || !res.Verified || res.Downloaded != m.Size() || len(res.Files) != 3 {
		t.Fatalf("progress %d (%d calls), result %+v", last, calls, res)
	}
	if err := Verify(m, dir); err != nil {
		t.Fatal(err)
	}
	if got := Missing(m, dir); len(got) != 0 {
		t.Fatalf("missing %v", got)
	}
	// Again: nothing is downloaded.
	before := h.requests.Load()
	res, err = Pull(context.Background(), m, dir, PullOptions{BaseURL: url})
	if err != nil || res.Downloaded != 0 || h.requests.Load() != before {
		t.Fatalf("second pull: %+v, %v, %d requests", res, err, h.requests.Load()-before)
	}
}

func TestPullResume(t *testing.T) {
	files := testFiles()
	h, url := serveHub(t, files)
	m := fakeModel(files)
	dir := t.TempDir()
	big := files["model.safetensors"]
	// A previous run left half of the big file.
	if err := os.WriteFile(filepath.Join(dir, "model.safetensors.part"), big[:len(big)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Pull(context.Background(), m, dir, PullOptions{BaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	if h.ranges.Load() != 1 {
		t.Errorf("%d range requests, want 1", h.ranges.Load())
	}
	if want := m.Size() - int64(len(big)/2); res.Downloaded != want {
		t.Errorf("downloaded %d bytes, want %d", res.Downloaded, want)
	}
	if err := Verify(m, dir); err != nil {
		t.Fatal(err)
	}
}

func TestPullBrokenTransferResumes(t *testing.T) {
	files := testFiles()
	h, url := serveHub(t, files)
	h.cut.Store(1 << 20)
	m := fakeModel(files)
	dir := t.TempDir()
	// Without retries the pull fails, keeping the part file.
	_, err := Pull(context.Background(), m, dir, PullOptions{BaseURL: url})
	if noema.ErrorCode(err) != noema.EUNAVAILABLE {
		t.Fatalf("broken transfer: %v (code %s)", err, noema.ErrorCode(err))
	}
	st, err := os.Stat(filepath.Join(dir, "model.safetensors.part"))
	if err != nil || st.Size() != 1<<20 {
		t.Fatalf("part file: %v, %v", st, err)
	}
	// The next pull resumes from there.
	if _, err := Pull(context.Background(), m, dir, PullOptions{BaseURL: url}); err != nil {
		t.Fatal(err)
	}
	if h.ranges.Load() != 1 {
		t.Errorf("%d range requests, want 1", h.ranges.Load())
	}
	if err := Verify(m, dir); err != nil {
		t.Fatal(err)
	}
	// With retries, one call is enough.
	dir2 := t.TempDir()
	if _, err := Pull(context.Background(), m, dir2, PullOptions{BaseURL: url, Retries: 2}); err != nil {
		t.Fatal(err)
	}
}

func TestPullChecksumMismatch(t *testing.T) {
	files := testFiles()
	m := fakeModel(files)
	bad := testFiles()
	bad["model.safetensors"] = append([]byte(nil), bad["model.safetensors"]...)
	bad["model.safetensors"][12345] ^= 1
	_, url := serveHub(t, bad)
	dir := t.TempDir()
	_, err := Pull(context.Background(), m, dir, PullOptions{BaseURL: url})
	if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("got %v", err)
	}
	for _, p := range []string{"model.safetensors", "model.safetensors.part"} {
		if _, err := os.Stat(filepath.Join(dir, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}
}

func TestPullMissingFile(t *testing.T) {
	files := testFiles()
	m := fakeModel(files)
	served := testFiles()
	delete(served, "1_Pooling/config.json")
	_, url := serveHub(t, served)
	_, err := Pull(context.Background(), m, t.TempDir(), PullOptions{BaseURL: url})
	if noema.ErrorCode(err) != noema.ENOTFOUND || !strings.Contains(err.Error(), "404") {
		t.Fatalf("got %v", err)
	}
}

func TestPullNoNetwork(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	m := fakeModel(testFiles())
	_, err := Pull(context.Background(), m, t.TempDir(), PullOptions{BaseURL: url})
	if noema.ErrorCode(err) != noema.EUNAVAILABLE || !strings.Contains(err.Error(), "network") {
		t.Fatalf("got %v", err)
	}
}

func TestKnown(t *testing.T) {
	for _, m := range Known {
		if len(m.Revision) != 40 || m.Pooling == "" || m.MaxLength == 0 || m.Dimension == 0 {
			t.Errorf("%s: incomplete pin %+v", m.Name, m)
		}
		for _, f := range m.Files {
			if len(f.SHA256) != 64 || f.Size <= 0 {
				t.Errorf("%s/%s: bad pin", m.Name, f.Path)
			}
		}
		if got, ok := Lookup(strings.ToUpper(m.Name)); !ok || got.Name != m.Name {
			t.Errorf("Lookup(%s)", m.Name)
		}
	}
	if _, ok := Lookup(Default); !ok {
		t.Error("the default model is not known")
	}
	d, err := Dir("all-MiniLM-L6-v2", func(k string) string { return map[string]string{"XDG_DATA_HOME": "/data"}[k] })
	if err != nil || d != filepath.Join("/data", "noema", "models", "all-MiniLM-L6-v2") {
		t.Errorf("Dir = %q, %v", d, err)
	}
	if _, err := Dir("../x", nil); err == nil {
		t.Error("Dir accepted ../x")
	}
}
