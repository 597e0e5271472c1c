package httpserver_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/httpserver"
)

func ExampleNew() {
	server := mcp.NewServer(&mcp.Implementation{Name: "noema", Version: "v0"}, nil)
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)

	s, err := httpserver.New(mcpHandler, httpserver.Options{Token: "example-token"})
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler()) // in production: s.ListenAndServe(ctx)
	defer ts.Close()

	get := func(path, origin string) int {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	fmt.Println(get("/healthz", ""))
	fmt.Println(get("/mcp", ""))                     // no token
	fmt.Println(get("/mcp", "https://evil.example")) // foreign browser origin
	// Output:
	// 200
	// 401
	// 403
}
