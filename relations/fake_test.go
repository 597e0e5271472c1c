package relations_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/testkit"
	"github.com/noema-mem/noema/relations"
	"github.com/noema-mem/noema/vault"
)

// fakeRelations is a relations service over a vault with one note
// declaring two relations and an in-memory relation index that derives a
// file's relations from its front matter when the service syncs it.
func fakeRelations(t *testing.T) (*relations.Service, *testkit.Relations, *vault.Vault) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	note := "---\nrelations:\n  - type: depends_on\n    to: \"[[Memory]]\"\n    weight: 0.5\n  - type: cites\n    to: \"[[Paper]]\"\n---\nBody.\n"
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix := testkit.NewRelations(func(path string) ([]noema.Relation, bool, error) {
		content, _, err := v.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		src, _, _, _ := vault.SplitFrontMatter(content)
		fm, err := vault.ParseFrontMatter(src)
		if err != nil {
			return nil, false, err
		}
		raw, err := fm.Relations()
		if err != nil {
			return nil, false, err
		}
		var out []noema.Relation
		for _, r := range raw {
			ref := vault.RelationRef(r.To)
			id := r.ID
			if id == "" {
				id = noema.RelationID(path, r.Type, ref)
			}
			out = append(out, noema.Relation{ID: id, From: noema.NoteURI(path), Type: r.Type, To: ref, Weight: r.Weight, Metadata: r.Metadata})
		}
		return out, true, nil
	})
	if err := ix.SyncFiles(ctx, []string{"a.md"}, ""); err != nil {
		t.Fatal(err)
	}
	return &relations.Service{Vault: v, DB: ix, Sync: ix}, ix, v
}

// TestUpdateDeleteOnFake changes a relation in its file and indexes the
// file through the fake: the index then has the new state.
func TestUpdateDeleteOnFake(t *testing.T) {
	ctx := context.Background()
	s, ix, v := fakeRelations(t)
	dep := noema.RelationID("a.md", "depends_on", "concept:memory")
	cites := noema.RelationID("a.md", "cites", "concept:paper")
	r, err := s.Get(ctx, dep)
	if err != nil {
		t.Fatal(err)
	}
	if r.Type != "depends_on" || r.Weight == nil || *r.Weight != 0.5 {
		t.Fatalf("Get(%s) = %+v, want depends_on weighing 0.5", dep, r)
	}
	w := 0.9
	r, err = s.Update(ctx, relations.UpdateInput{ID: dep, Weight: &w, Metadata: map[string]any{"source": "review"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != dep || *r.Weight != 0.9 || r.Metadata["source"] != "review" {
		t.Errorf("after Update, the index has %+v; want the same id, weight 0.9, the new metadata", r)
	}
	if _, err := s.Delete(ctx, cites); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, cites); noema.ErrorCode(err) != noema.ENOTFOUND {
		t.Errorf("Get after Delete: %v, want not_found", err)
	}
	if _, err := s.Delete(ctx, cites); noema.ErrorCode(err) != noema.ENOTFOUND {
		t.Errorf("a second Delete: %v, want not_found", err)
	}
	content, _, err := v.ReadFile("a.md")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(content), "Paper") || !strings.Contains(string(content), "0.9") {
		t.Errorf("a.md after the changes:\n%s\nwant the cites relation gone and the weight 0.9", content)
	}
	if got := len(ix.Synced()); got != 3 {
		t.Errorf("%d syncs, want 3 (the set-up, the update, the delete)", got)
	}
	if _, err := s.Get(ctx, " "); noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("Get(blank): %v, want invalid_argument", err)
	}
}
