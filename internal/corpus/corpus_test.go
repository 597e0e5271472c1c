package corpus_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/noema-mem/noema/internal/corpus"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// generate writes a vault under t.TempDir and returns its directory and manifest.
func generate(t *testing.T, opts corpus.Options) (string, *corpus.Manifest) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	m, err := corpus.Generate(context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", opts, err)
	}
	return dir, m
}

// snapshot returns every file of dir (slash path → content) and its mtime.
func snapshot(t *testing.T, dir string) (map[string]string, map[string]time.Time) {
	t.Helper()
	files := map[string]string{}
	times := map[string]time.Time{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		times[filepath.ToSlash(rel)] = info.ModTime().UTC()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, times
}

func TestGenerateDeterministic(t *testing.T) {
	opts := corpus.Options{Seed: 7, Notes: 150}
	dir1, m1 := generate(t, opts)
	dir2, m2 := generate(t, opts)
	files1, times1 := snapshot(t, dir1)
	files2, times2 := snapshot(t, dir2)
	if len(files1) != opts.Notes {
		t.Fatalf("got %d files, want %d", len(files1), opts.Notes)
	}
	if !reflect.DeepEqual(files1, files2) {
		t.Error("same seed: file contents differ")
	}
	if !reflect.DeepEqual(times1, times2) {
		t.Error("same seed: modification times differ")
	}
	if !reflect.DeepEqual(m1, m2) {
		t.Error("same seed: manifests differ")
	}

	opts.Seed = 8
	dir3, _ := generate(t, opts)
	files3, _ := snapshot(t, dir3)
	same := 0
	for p, c := range files3 {
		if files1[p] == c {
			same++
		}
	}
	if same > 0 {
		t.Errorf("different seed: %d identical files", same)
	}
}

// TestGolden pins the exact output for one seed, so that an accidental change
// to the generator (which would shift every golden ranking built on it) is
// noticed. Run with -update after an intended change.
func TestGolden(t *testing.T) {
	dir, m := generate(t, corpus.Options{Seed: 1, Notes: 100})
	files, times := snapshot(t, dir)
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00", p, times[p].Unix(), files[p])
	}
	mj, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	mh := sha256.Sum256(mj)
	got := fmt.Sprintf("files %x\nmanifest %x\nfirst %s\n", h.Sum(nil), mh, m.Notes[0].Path)

	golden := filepath.Join("testdata", "seed1.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("output changed for seed 1:\ngot:\n%s\nwant:\n%s", got, want)
	}
}

// key is the concept key (vault.Key; docs/decisions.md, "Vault and index"): NFKC, case fold, runs of
// whitespace/'_'/'-' → one space, trimmed.
func key(s string) string {
	s = cases.Fold().String(norm.NFKC.String(s))
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == '_' || r == '-'
	}), " ")
}

var linkRE = regexp.MustCompile(`\[\[([^\[\]\n]*)\]\]`)

// scan parses a Markdown file the way CommonMark sees code: it returns the
// links outside fenced, indented and inline code, and the number of "[["
// inside code.
func scan(t *testing.T, content string) (links []corpus.Link, fake int) {
	t.Helper()
	body := content
	if strings.HasPrefix(body, "---\n") {
		end := strings.Index(body[4:], "\n---\n")
		if end < 0 {
			t.Fatalf("unterminated front matter:\n%s", content)
		}
		if strings.Contains(body[:end+4], "[[") {
			t.Errorf("front matter contains [[:\n%s", body[:end+4])
		}
		body = body[4+end+5:]
	}
	var (
		fence      string // the opening fence while inside one
		prevBlank  = true
		inIndented bool
		lastList   bool // the last non-blank line outside code was a list item
	)
	listItem := regexp.MustCompile(`^(\s*)([-*+]|\d+\.)\s`)
	for _, line := range strings.Split(body, "\n") {
		blank := strings.TrimSpace(line) == ""
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		switch {
		case fence != "":
			if indent < 4 && strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]+" ") == "" {
				fence = ""
			} else {
				fake += strings.Count(line, "[[")
			}
		case indent < 4 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			c := trimmed[:1]
			fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, c))]
		case !blank && indent >= 4 && (prevBlank || inIndented) && !lastList:
			inIndented = true
			fake += strings.Count(line, "[[")
		case blank:
		default:
			inIndented = false
			lastList = listItem.MatchString(line)
			text, inside := stripInlineCode(line)
			fake += inside
			for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
				inner := m[1]
				var l corpus.Link
				if i := strings.Index(inner, "|"); i >= 0 {
					inner, l.Display = inner[:i], inner[i+1:]
				}
				if i := strings.Index(inner, "#"); i >= 0 {
					inner, l.Heading = inner[:i], inner[i+1:]
				}
				l.Target = inner
				links = append(links, l)
			}
		}
		if fence == "" && !inIndented || blank {
			prevBlank = blank
		}
	}
	if fence != "" {
		t.Errorf("unclosed fence %q", fence)
	}
	return links, fake
}

// stripInlineCode removes code spans from a line and counts the "[[" in them.
func stripInlineCode(line string) (string, int) {
	var out strings.Builder
	n := 0
	for {
		i := strings.Index(line, "`")
		if i < 0 {
			out.WriteString(line)
			return out.String(), n
		}
		run := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
		delim := line[i : i+run]
		rest := line[i+run:]
		j := strings.Index(rest, delim)
		// A closing run must be exactly as long as the opening one.
		for j >= 0 && j+run < len(rest) && rest[j+run] == '`' {
			k := strings.Index(rest[j+run+1:], delim)
			if k < 0 {
				j = -1
				break
			}
			j += run + 1 + k
		}
		if j < 0 {
			out.WriteString(line)
			return out.String(), n
		}
		out.WriteString(line[:i])
		n += strings.Count(rest[:j], "[[")
		line = rest[j+run:]
	}
}

func TestGenerateLinks(t *testing.T) {
	scenarios := []struct {
		Name string
		Opts corpus.Options
	}{
		{"Defaults", corpus.Options{Seed: 3, Notes: 300}},
		{"ManyLinksSmallNotes", corpus.Options{Seed: 4, Notes: 100, LinksPerNote: 30, TargetBytes: 600, FakeLinkRate: 1}},
		{"AllVariants", corpus.Options{Seed: 5, Notes: 100, VariantRate: 1, Concepts: 400}},
		{"NoLinks", corpus.Options{Seed: 6, Notes: 50, LinksPerNote: -1}},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			dir, m := generate(t, sc.Opts)
			files, _ := snapshot(t, dir)
			wantM := sc.Opts.LinksPerNote
			switch {
			case wantM == 0:
				wantM = corpus.DefaultLinksPerNote
			case wantM < 0:
				wantM = 0
			}
			var total, fakes int
			for _, n := range m.Notes {
				content, ok := files[n.Path]
				if !ok {
					t.Fatalf("%s: in manifest, not on disk", n.Path)
				}
				if len(n.Links) != wantM {
					t.Errorf("%s: manifest has %d links, want %d", n.Path, len(n.Links), wantM)
				}
				got, fake := scan(t, content)
				want := make([]corpus.Link, len(n.Links))
				for i, l := range n.Links {
					want[i] = corpus.Link{Target: l.Target, Heading: l.Heading, Display: l.Display}
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: links outside code\ngot  %q\nwant %q\n%s", n.Path, got, want, content)
				}
				if !slices.Equal(n.Targets(), targets(got)) {
					t.Errorf("%s: Targets() = %q", n.Path, n.Targets())
				}
				if fake != n.FakeLinks {
					t.Errorf("%s: %d [[ inside code, manifest says %d\n%s", n.Path, fake, n.FakeLinks, content)
				}
				if n.Bytes != len(content) {
					t.Errorf("%s: Bytes = %d, file has %d", n.Path, n.Bytes, len(content))
				}
				total += len(n.Links)
				fakes += fake
			}
			if m.Totals.Links != total || m.Totals.FakeLinks != fakes || m.Totals.Notes != len(m.Notes) {
				t.Errorf("totals %+v, counted links=%d fake=%d", m.Totals, total, fakes)
			}
			var perConcept int
			for _, c := range m.Concepts {
				perConcept += c.Links
			}
			if perConcept != total {
				t.Errorf("concept link counts sum to %d, want %d", perConcept, total)
			}
			if sc.Opts.FakeLinkRate == 1 && fakes < len(m.Notes) {
				t.Errorf("FakeLinkRate 1: only %d fake links in %d notes", fakes, len(m.Notes))
			}
		})
	}
}

func targets(links []corpus.Link) []string {
	out := make([]string, len(links))
	for i, l := range links {
		out[i] = l.Target
	}
	return out
}

func TestVariantsNormalize(t *testing.T) {
	_, m := generate(t, corpus.Options{Seed: 11, Notes: 400, Concepts: 600, VariantRate: 0.5})
	keys := map[string]string{}
	var accented, cjk int
	for _, c := range m.Concepts {
		k := key(c.Label)
		if other, dup := keys[k]; dup {
			t.Errorf("labels %q and %q share key %q", other, c.Label, k)
		}
		keys[k] = c.Label
		switch {
		case strings.ContainsFunc(c.Label, func(r rune) bool {
			return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
		}):
			cjk++
		case strings.ContainsFunc(c.Label, func(r rune) bool { return r > unicode.MaxASCII }):
			accented++
		}
		if n := len(strings.Fields(c.Label)); n < 1 || n > 3 {
			t.Errorf("label %q has %d words", c.Label, n)
		}
	}
	if accented == 0 || cjk == 0 {
		t.Errorf("vocabulary of %d has %d accented and %d CJK labels, want some of each", len(m.Concepts), accented, cjk)
	}

	kinds := map[string]int{}
	for _, n := range m.Notes {
		for _, l := range n.Links {
			if key(l.Target) != key(l.Label) {
				t.Errorf("variant %q of %q: key %q != %q", l.Target, l.Label, key(l.Target), key(l.Label))
			}
			if l.Target == l.Label {
				continue
			}
			switch {
			case strings.Contains(l.Target, "_"):
				kinds["underscore"]++
			case strings.Contains(l.Target, "-"):
				kinds["hyphen"]++
			case strings.Contains(l.Target, "  "):
				kinds["spaces"]++
			case !norm.NFC.IsNormalString(l.Target):
				kinds["nfd"]++
			case !norm.NFKC.IsNormalString(l.Target):
				kinds["fullwidth"]++
			default:
				kinds["case"]++
			}
		}
	}
	if m.Totals.VariantLinks == 0 {
		t.Fatal("no variant links")
	}
	for _, k := range []string{"underscore", "hyphen", "case"} {
		if kinds[k] == 0 {
			t.Errorf("no %s variants among %v", k, kinds)
		}
	}
	if share := float64(m.Totals.VariantLinks) / float64(m.Totals.Links); share < 0.35 || share > 0.55 {
		t.Errorf("variant share %.2f, want ≈0.5", share)
	}

	// No title or alias has a concept's key, and titles are unique by key.
	seen := map[string]string{}
	for _, n := range m.Notes {
		for _, s := range append([]string{n.Title}, n.Aliases...) {
			k := key(s)
			if c, ok := keys[k]; ok {
				t.Errorf("%s: %q has the key of concept %q", n.Path, s, c)
			}
			if p, ok := seen[k]; ok {
				t.Errorf("%s: %q has the key of a title or alias of %s", n.Path, s, p)
			}
			seen[k] = n.Path
		}
		if filepath.Base(n.Path) != n.Title+".md" {
			t.Errorf("%s: title %q", n.Path, n.Title)
		}
	}
}

func TestSizes(t *testing.T) {
	for _, target := range []int{800, 1500, 4000} {
		t.Run(fmt.Sprint(target), func(t *testing.T) {
			_, m := generate(t, corpus.Options{Seed: 21, Notes: 200, TargetBytes: target})
			var sum float64
			for _, n := range m.Notes {
				sum += float64(n.Bytes)
				if n.Bytes < target/2 || n.Bytes > 2*target {
					t.Errorf("%s: %d bytes, target %d", n.Path, n.Bytes, target)
				}
			}
			mean := sum / float64(len(m.Notes))
			if math.Abs(mean-float64(target))/float64(target) > 0.15 {
				t.Errorf("mean size %.0f, target %d", mean, target)
			}
			if m.Totals.Bytes != int64(sum) {
				t.Errorf("Totals.Bytes = %d, want %d", m.Totals.Bytes, int64(sum))
			}
		})
	}
}

func TestFrontMatter(t *testing.T) {
	dir, m := generate(t, corpus.Options{Seed: 31, Notes: 300})
	files, times := snapshot(t, dir)
	var withFM, custom, dateOnly int
	for _, n := range m.Notes {
		content := files[n.Path]
		if !times[n.Path].Equal(n.Modified) {
			t.Errorf("%s: mtime %v, want %v", n.Path, times[n.Path], n.Modified)
		}
		if n.Modified.Before(n.Created) || n.Created.Before(corpus.BaseTime().Truncate(24*time.Hour)) {
			t.Errorf("%s: created %v modified %v", n.Path, n.Created, n.Modified)
		}
		if !n.FrontMatter {
			if strings.HasPrefix(content, "---\n") || len(n.Tags)+len(n.Aliases) > 0 {
				t.Errorf("%s: front matter not announced in the manifest", n.Path)
			}
			continue
		}
		withFM++
		end := strings.Index(content[4:], "\n---\n")
		if !strings.HasPrefix(content, "---\n") || end < 0 {
			t.Fatalf("%s: no front matter:\n%s", n.Path, content)
		}
		var fm struct {
			Title    *string        `yaml:"title"`
			Tags     []string       `yaml:"tags"`
			Aliases  []string       `yaml:"aliases"`
			Created  *time.Time     `yaml:"created"`
			Modified *time.Time     `yaml:"modified"`
			Custom   map[string]any `yaml:"custom"`
		}
		raw := content[4 : 4+end+1]
		if err := yaml.Unmarshal([]byte(raw), &fm); err != nil {
			t.Fatalf("%s: front matter: %v\n%s", n.Path, err, raw)
		}
		if fm.Title != nil && *fm.Title != n.Title {
			t.Errorf("%s: front-matter title %q", n.Path, *fm.Title)
		}
		if !slices.Equal(fm.Tags, n.Tags) || !slices.Equal(fm.Aliases, n.Aliases) {
			t.Errorf("%s: tags %q aliases %q, manifest %q %q", n.Path, fm.Tags, fm.Aliases, n.Tags, n.Aliases)
		}
		if fm.Created != nil && !fm.Created.Equal(n.Created) {
			t.Errorf("%s: created %v, manifest %v", n.Path, fm.Created, n.Created)
		}
		if fm.Modified != nil && !fm.Modified.Equal(n.Modified) {
			t.Errorf("%s: modified %v, manifest %v", n.Path, fm.Modified, n.Modified)
		}
		if fm.Custom != nil {
			custom++
			if fm.Custom["x"] != 1 {
				t.Errorf("%s: custom = %v", n.Path, fm.Custom)
			}
		}
		if bytes.Contains([]byte(raw), []byte("created: 20")) && !strings.Contains(raw, "T") {
			dateOnly++
		}
	}
	if share := float64(withFM) / float64(len(m.Notes)); math.Abs(share-corpus.DefaultFrontMatterRate) > 0.1 {
		t.Errorf("%.2f of notes have front matter, want ≈%.2f", share, corpus.DefaultFrontMatterRate)
	}
	if custom == 0 || dateOnly == 0 {
		t.Errorf("%d notes with custom keys, %d with plain dates; want some of each", custom, dateOnly)
	}
}

func TestDisabledFeatures(t *testing.T) {
	dir, m := generate(t, corpus.Options{Seed: 41, Notes: 80, VariantRate: -1, FakeLinkRate: -1, FrontMatterRate: -1})
	files, _ := snapshot(t, dir)
	if m.Totals.VariantLinks != 0 || m.Totals.FakeLinks != 0 {
		t.Errorf("totals %+v, want no variants and no fake links", m.Totals)
	}
	for p, c := range files {
		if strings.HasPrefix(c, "---\n") {
			t.Errorf("%s has front matter", p)
		}
		if strings.Contains(c, "`[[") || strings.Contains(c, "    [[") {
			t.Errorf("%s has links in code", p)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	nonEmpty := t.TempDir()
	if err := os.WriteFile(filepath.Join(nonEmpty, "x.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	scenarios := []struct {
		Name string
		Dir  string
		Opts corpus.Options
	}{
		{"NoNotes", "", corpus.Options{}},
		{"RateAboveOne", "", corpus.Options{Notes: 1, VariantRate: 1.5}},
		{"NegativeConcepts", "", corpus.Options{Notes: 1, Concepts: -1}},
		{"NonEmptyDir", nonEmpty, corpus.Options{Notes: 1}},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			dir := sc.Dir
			if dir == "" {
				dir = t.TempDir()
			}
			if _, err := corpus.Generate(context.Background(), dir, sc.Opts); err == nil {
				t.Error("Generate succeeded, want an error")
			}
		})
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := corpus.Generate(ctx, t.TempDir(), corpus.Options{Notes: 10}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: err = %v", err)
	}
}

func TestZipf(t *testing.T) {
	_, m := generate(t, corpus.Options{Seed: 51, Notes: 1000})
	counts := make([]int, len(m.Concepts))
	for i, c := range m.Concepts {
		counts[i] = c.Links
	}
	// The most popular rank gets several times the median one.
	sorted := slices.Clone(counts)
	slices.Sort(sorted)
	median := sorted[len(sorted)/2]
	if counts[0] < 10*max(median, 1) {
		t.Errorf("rank 1 has %d links, median %d: not skewed", counts[0], median)
	}
	if m.Totals.Concepts < len(m.Concepts)/2 {
		t.Errorf("only %d of %d concepts linked", m.Totals.Concepts, len(m.Concepts))
	}
}
