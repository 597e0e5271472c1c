package semantic_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/semantic"
)

var rankWords = strings.Fields(`cache latency query index vector memory graph decay token parser
	schema replica shard queue lease budget window socket kernel thread`)

// randomVault writes notes, old and fresh, in folders with their own
// grace and as concept pages, linking concepts named by random words.
func randomVault(rng *rand.Rand) (files map[string]string, labels []string) {
	seen := map[string]bool{}
	for len(labels) < 100 {
		n := 1 + rng.IntN(3)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = rankWords[rng.IntN(len(rankWords))]
		}
		l := strings.Join(ws, " ")
		if !seen[l] {
			seen[l] = true
			labels = append(labels, l)
		}
	}
	files = map[string]string{}
	folders := []string{"", "journal/", "projects/", "projects/old/"}
	date := func() string {
		days := rng.IntN(20) // fresh
		if rng.IntN(2) == 0 {
			days = 20 + rng.IntN(3000) // old, some very old
		}
		return now.AddDate(0, 0, -days).Format("2006-01-02")
	}
	for i := range 150 {
		var body strings.Builder
		for range 1 + rng.IntN(4) {
			fmt.Fprintf(&body, "See [[%s]]. ", labels[rng.IntN(len(labels))])
		}
		files[fmt.Sprintf("%snote %d.md", folders[rng.IntN(len(folders))], i)] = "---\nmodified: " + date() + "\n---\n" + body.String() + "\n"
	}
	for _, l := range labels[:6] { // pages, some of concepts nothing links
		files["concepts/"+l+".md"] = "---\nmodified: " + date() + "\n---\nA page.\n"
	}
	return files, labels
}

// TestFindSimilarMatchesAScanOfEveryConcept checks, on random vaults,
// that find_similar_concepts returns exactly what scoring every concept
// by its notes returns (results, scores and order), under every decay
// curve, with folder grace and with decay off, and still after writes,
// reads, moves and deletes change concepts' freshness behind the
// services' backs.
func TestFindSimilarMatchesAScanOfEveryConcept(t *testing.T) {
	ctx := context.Background()
	clock := func() time.Time { return now }
	grace := map[string]float64{"journal/": 3, "projects/": 40, "projects/old/": 0}
	configs := map[string]decay.Config{
		"exponential": decay.DefaultConfig(),
		"power":       {Func: decay.Power, GraceDays: 14, HalfLifeDays: 30},
		"folder exponential": {Func: decay.Exponential, GraceDays: 7, HalfLifeDays: 10,
			FolderGrace: grace},
		"folder power": {Func: decay.Power, GraceDays: 1, HalfLifeDays: 30, FolderGrace: grace},
		"disabled":     {Func: decay.Exponential, GraceDays: 14, HalfLifeDays: 30, Disabled: true},
		"steep":        {Func: decay.Exponential, GraceDays: 0, HalfLifeDays: 0.01}, // weights underflow to 0
	}
	for seed := range 2 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		files, labels := randomVault(rng)
		a := noematest.AppWith(t, files)
		a.DB.Now, a.Notes.Now, a.Semantic.Now = clock, clock, clock
		services := map[string]*semantic.Service{}
		for name, cfg := range configs {
			s := semantic.New(a.DB.Semantic(), a.Semantic.Embedder, cfg, nil)
			s.Now = clock
			if name == "power" { // bounds read ahead, as a server does
				if err := s.RefreshDecay(ctx); err != nil {
					t.Fatal(err)
				}
			}
			services[name] = s
		}
		check := func(stage string) {
			t.Helper()
			queries := append([]string{"cache latency", "vector index memory", "kernel"}, labels[rng.IntN(len(labels))], labels[rng.IntN(len(labels))])
			for name, s := range services {
				for _, q := range queries {
					for _, k := range []int{1, 3, 10, 50} {
						for _, useDecay := range []bool{true, false} {
							in := semantic.SimilarInput{Concept: q, MaxResults: k, Decay: &useDecay}
							got, err := s.FindSimilar(ctx, in)
							if err != nil {
								t.Fatal(err)
							}
							want, err := s.SimilarByScan(ctx, in)
							if err != nil {
								t.Fatal(err)
							}
							if !reflect.DeepEqual(got.Results, want) {
								t.Fatalf("seed %d, %s, %s: %q k=%d decay=%v:\n got %+v\nwant %+v", seed, stage, name, q, k, useDecay, got.Results, want)
							}
						}
					}
				}
			}
		}
		check("synced")
		// Change freshness behind the services: a fresh note linking old
		// concepts, reads of old notes, a move into a folder with more
		// grace, a deletion, a new page.
		for i := range 3 {
			noematest.WriteNote(t, a, notes.WriteInput{Title: fmt.Sprintf("fresh %d", i),
				Content: fmt.Sprintf("---\nmodified: %s\n---\n[[%s]] and [[%s]]\n", now.Format("2006-01-02"), labels[rng.IntN(len(labels))], labels[rng.IntN(len(labels))])})
		}
		check("written")
		for range 5 {
			if _, err := a.Notes.Read(ctx, fmt.Sprintf("note %d", rng.IntN(150))); err != nil {
				t.Fatal(err)
			}
		}
		check("read")
		moveSome(t, a, rng)
		check("moved and deleted")
		// A fresh page for a concept only old notes linked, and a page
		// rewritten old.
		noematest.WriteNote(t, a, notes.WriteInput{Title: labels[10], Folder: "concepts",
			Content: "---\nmodified: " + now.Format("2006-01-02") + "\n---\nNow a page.\n"})
		noematest.WriteNote(t, a, notes.WriteInput{Title: labels[0], Folder: "concepts", Overwrite: true,
			Content: "---\nmodified: 2019-01-01\n---\nAn old page.\n"})
		check("pages written")
	}
}

// moveSome moves a note into projects/ and deletes another.
func moveSome(t *testing.T, a *app.App, rng *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	list, err := a.Notes.List(ctx, notes.ListInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Notes) < 2 {
		t.Fatal("no notes to move")
	}
	p := list.Notes[rng.IntN(len(list.Notes))].Path
	if _, err := a.Notes.Move(ctx, p, "projects/moved "+p[strings.LastIndex(p, "/")+1:]); err != nil {
		t.Fatal(err)
	}
	q := list.Notes[rng.IntN(len(list.Notes))].Path
	if q == p {
		return
	}
	if _, err := a.Notes.Delete(ctx, q, true); err != nil {
		t.Fatal(err)
	}
}

// TestNotesTooOldToWeighStillCount: a concept whose notes are so old that
// their weights underflow to 0 has decay 0, not the 1 of a concept
// without notes (it used to rank as if fresh).
func TestNotesTooOldToWeighStillCount(t *testing.T) {
	a := noematest.AppWith(t, map[string]string{
		"ancient.md": "---\nmodified: 2001-01-01\n---\n[[Alpha Widget]]\n",
		"recent.md":  "---\nmodified: 2026-05-20\n---\n[[Widget Alpha]]\n",
	})
	a.DB.Now, a.Notes.Now = func() time.Time { return now }, func() time.Time { return now }
	s := semantic.New(a.DB.Semantic(), a.Semantic.Embedder, decay.Config{Func: decay.Exponential, HalfLifeDays: 1}, nil)
	s.Now = func() time.Time { return now }
	res, err := s.FindSimilar(context.Background(), semantic.SimilarInput{Concept: "alpha widget design"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.Results[0].Label != "Widget Alpha" || res.Results[1].Decay != 0 || res.Results[1].Score != 0 {
		t.Errorf("results = %+v, want Widget Alpha first and Alpha Widget's decay and score 0", res.Results)
	}
}
