package recall_test

import (
	"cmp"
	"context"
	"math"
	"testing"
	"time"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/recall"
	"github.com/noema-mem/noema/vault"
)

// TestAgainstCorpusManifest checks build_context on a generated vault
// against counts and weights derived independently from the generator's
// manifest (the links it wrote, by concept key, and each note's date).
func TestAgainstCorpusManifest(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	a, m := noematest.SyncedApp(t, corpus.Options{Seed: 11, Notes: 400, Concepts: 600}, app.Options{Config: &cfg})
	now := corpus.BaseTime().AddDate(2, 3, 0)
	d := decay.DefaultConfig()
	s := recall.New(a.DB.Mentions(), a.Concepts, d)
	s.Now = func() time.Time { return now }

	// notesOf: concept key -> note path -> weight.
	notesOf := map[string]map[string]float64{}
	for _, n := range m.Notes {
		w := d.Weight(n.Path, n.Modified, now)
		for _, l := range n.Links {
			k := vault.Key(l.Label)
			if notesOf[k] == nil {
				notesOf[k] = map[string]float64{}
			}
			notesOf[k][n.Path] = w
		}
	}
	pair := func(x, y string) (int, float64) {
		c, w := 0, 0.0
		for p, pw := range notesOf[x] {
			if _, ok := notesOf[y][p]; ok {
				c++
				w += pw
			}
		}
		return c, w
	}
	same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

	checked, far := 0, 0
	for rank := 0; rank < len(m.Concepts); rank += 37 {
		root := vault.Key(m.Concepts[rank].Label)
		if len(notesOf[root]) == 0 {
			continue // never linked: not a concept
		}
		checked++
		res, err := s.BuildContext(ctx, recall.Input{Concept: m.Concepts[rank].Label, Depth: 2, MaxEntities: 200})
		if err != nil {
			t.Fatal(err)
		}
		if want := min(len(notesOf[root]), 200); len(res.Notes) != want {
			t.Errorf("%s: %d notes, want %d", root, len(res.Notes), want)
		}
		for i, n := range res.Notes {
			path := n.URI[len("memory://"):] + ".md"
			if w, ok := notesOf[root][path]; !ok || !same(n.Decay, w) {
				t.Errorf("%s: note %s decay %v, want %v (mentions: %v)", root, path, n.Decay, w, ok)
			}
			if i > 0 {
				p := res.Notes[i-1]
				if cmp.Or(cmp.Compare(n.Decay, p.Decay), n.Modified.Compare(p.Modified)) > 0 {
					t.Errorf("%s: notes out of order at %d: %+v after %+v", root, i, n, p)
				}
			}
		}
		// Distance 1: every co-occurring concept, if they fit.
		cooc := map[string]bool{}
		for k := range notesOf {
			if c, _ := pair(root, k); c > 0 && k != root {
				cooc[k] = true
			}
		}
		keyOf := map[string]string{} // id -> key
		dist1 := 0
		for i, r := range res.Related {
			k := vault.Key(r.Label)
			keyOf[r.ID] = k
			if i > 0 {
				p := res.Related[i-1]
				if p.Distance == r.Distance && cmp.Or(cmp.Compare(r.Weight, p.Weight), cmp.Compare(r.Count, p.Count), cmp.Compare(p.Label, r.Label)) > 0 {
					t.Errorf("%s: related out of order at %d: %+v after %+v", root, i, r, p)
				}
				if p.Distance > r.Distance {
					t.Errorf("%s: distance %d after %d", root, r.Distance, p.Distance)
				}
			}
			via := root
			if r.Distance == 1 {
				dist1++
				if !cooc[k] {
					t.Errorf("%s: %s at distance 1 shares no note", root, k)
				}
			} else {
				far++
				if cooc[k] {
					t.Errorf("%s: %s at distance %d shares a note with the root", root, k, r.Distance)
				}
				var ok bool
				if via, ok = keyOf[r.Via]; !ok {
					t.Errorf("%s: %s's via %s is not listed before it", root, k, r.Via)
					continue
				}
				// The via is the heaviest link among the kept distance-1 concepts.
				for _, q := range res.Related {
					if q.Distance == r.Distance-1 {
						if _, w := pair(keyOf[q.ID], k); w > r.Weight+1e-9 {
							t.Errorf("%s: %s co-occurs more heavily with %s (%v) than with its via (%v)", root, k, q.Label, w, r.Weight)
						}
					}
				}
			}
			c, w := pair(via, k)
			if r.Count != c || !same(r.Weight, w) {
				t.Errorf("%s: %s via %s: count %d weight %v, want %d %v", root, k, via, r.Count, r.Weight, c, w)
			}
		}
		if len(cooc) <= 200 && dist1 != len(cooc) {
			t.Errorf("%s: %d concepts at distance 1, want %d", root, dist1, len(cooc))
		}
		if len(cooc) > 200 && dist1 != 200 {
			t.Errorf("%s: %d concepts at distance 1, want the 200 kept", root, dist1)
		}
	}
	if checked < 10 || far == 0 {
		t.Fatalf("checked %d concepts, %d entries beyond distance 1: the vault does not exercise the expansion", checked, far)
	}
}
