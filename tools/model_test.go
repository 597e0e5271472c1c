package tools_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/tools"
)

func TestModelPull(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Setenv("HF_ENDPOINT", srv.URL)
	srv.Close() // no network: nothing listens there
	pull := command(t, "model pull")
	if pull.Name != "" {
		t.Errorf("model pull is an MCP tool (%q)", pull.Name)
	}
	ctx := context.Background()
	_, err := pull.Run(ctx, &tools.Env{}, tools.ModelPullInput{})
	if noema.ErrorCode(err) != noema.EUNAVAILABLE || !strings.Contains(err.Error(), "all-MiniLM-L6-v2") || !strings.Contains(err.Error(), "network") {
		t.Errorf("pull without network: %v", err)
	}
	_, err = pull.Run(ctx, &tools.Env{}, tools.ModelPullInput{Names: []string{"gpt-5"}})
	if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), "known: all-MiniLM-L6-v2, bge-small-en-v1.5") {
		t.Errorf("unknown model: %v", err)
	}
	_, err = pull.Run(ctx, &tools.Env{}, tools.ModelPullInput{Names: []string{"all-MiniLM-L6-v2", "bge-small-en-v1.5"}, Dir: data})
	if noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("--dir with two models: %v", err)
	}
	out, err := command(t, "model list").Run(ctx, &tools.Env{}, tools.ModelListInput{})
	if err != nil {
		t.Fatal(err)
	}
	l := out.(*tools.ModelList)
	if len(l.Models) != 2 || l.Models[0].Present || !strings.HasPrefix(l.Models[0].Dir, data) || l.Models[1].Pooling != "cls" {
		t.Errorf("model list: %+v", l.Models)
	}
}
