package vault

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
)

func TestParse(t *testing.T) {
	file := "---\n" +
		"title: Gradient Checkpointing\n" +
		"tags: [ml, '#memory']\n" +
		"aliases: [Activation Checkpointing]\n" +
		"concept: Gradient Checkpointing\n" +
		"relations:\n" +
		"  - {type: part_of, to: \"[[Training]]\"}\n" +
		"---\n" +
		"Trades compute for [[Memory|memory]].\n" +
		"\n" +
		"```go\n" +
		"// [[not a link]]\n" +
		"```\n" +
		"See ![[Diagram#Top]].\n"
	n, err := Parse("notes/gc.md", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if n.Path != "notes/gc.md" || n.Title != "Gradient Checkpointing" || n.Concept != "Gradient Checkpointing" {
		t.Errorf("note = %+v", n)
	}
	if !reflect.DeepEqual(n.Tags, []string{"ml", "memory"}) || !reflect.DeepEqual(n.Aliases, []string{"Activation Checkpointing"}) {
		t.Errorf("tags %q aliases %q", n.Tags, n.Aliases)
	}
	if !reflect.DeepEqual(n.Relations, []RawRelation{{Type: "part_of", To: "Training"}}) {
		t.Errorf("relations = %+v", n.Relations)
	}
	if n.BodyOffset != strings.Index(file, "Trades") || string(n.Body) != file[n.BodyOffset:] {
		t.Errorf("body at %d", n.BodyOffset)
	}
	if n.Checksum != noema.Checksum([]byte(file)) || !strings.HasPrefix(n.Checksum, "sha256:") || len(n.Checksum) != 7+64 {
		t.Errorf("checksum = %q", n.Checksum)
	}
	want := []struct {
		text string
		line int
	}{{"[[Memory|memory]]", 9}, {"[[Diagram#Top]]", 14}}
	if len(n.Links) != len(want) {
		t.Fatalf("links = %+v", n.Links)
	}
	for i, w := range want {
		l := n.Links[i]
		if file[l.Offset:l.End] != w.text || l.Line != w.line {
			t.Errorf("link %d = %q at line %d, want %q at line %d", i, file[l.Offset:l.End], l.Line, w.text, w.line)
		}
	}
	if out, err := Join(n.FrontMatter, n.Body); err != nil || string(out) != file {
		t.Errorf("Join(Parse(file)) = %q, %v; want the file", out, err)
	}
}

func TestParseWithoutFrontMatter(t *testing.T) {
	n, err := Parse("dir/日本語のメモ.md", []byte("[[A]]"))
	if err != nil {
		t.Fatal(err)
	}
	if n.Title != "日本語のメモ" || n.FrontMatter == nil || len(n.FrontMatter.Keys()) != 0 || n.BodyOffset != 0 {
		t.Errorf("note = %+v", n)
	}
	if len(n.Links) != 1 || n.Links[0].Line != 1 || n.Links[0].Offset != 0 {
		t.Errorf("links = %+v", n.Links)
	}
	// an empty title falls back to the file name too
	if n, _ := Parse("x/y.md", []byte("---\ntitle: ''\n---\n")); n.Title != "y" {
		t.Errorf("title = %q", n.Title)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, file, msg string
	}{
		{"invalid utf-8", "abc \xff\xfe", "a.md: not valid UTF-8"},
		{"malformed yaml", "---\ntitle: x\ntags: [a\n---\nbody", "a.md: invalid front matter at line 3"},
		{"scanner error line", "---\na: 1\nb: 2\nc 2\nd: 3\n---\n", "line 4"},
		{"not a mapping", "---\n- a\n---\n", "not a mapping"},
		{"bad relation", "---\nrelations:\n  - type: t\n---\n", "a.md: invalid relation at line 3: missing to"},
	}
	for _, tt := range tests {
		_, err := Parse("a.md", []byte(tt.file))
		if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: err = %v; want EINVALID containing %q", tt.name, err, tt.msg)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("---\ntitle: a\n---\n[[b]]"))
	f.Add([]byte("---\r\na: [1\r\n---\r\n"))
	f.Add([]byte("\xef\xbb\xbf---\nrelations:\n  - {type: t, to: x}\n...\n> [[q]]"))
	f.Add([]byte(benchNote))
	f.Fuzz(func(t *testing.T, content []byte) {
		n, err := Parse("f.md", content)
		if err != nil {
			if noema.ErrorCode(err) != noema.EINVALID {
				t.Fatalf("error %v is not EINVALID", err)
			}
			return
		}
		if n.FrontMatter == nil || n.Title == "" {
			t.Fatalf("note %+v", n)
		}
		if !bytes.Equal(content[n.BodyOffset:], n.Body) {
			t.Fatal("body is not content[BodyOffset:]")
		}
		fmText, _, _, _ := SplitFrontMatter(content)
		if out, err := n.FrontMatter.Bytes(); err != nil || !bytes.Equal(out, fmText) {
			t.Fatalf("untouched front matter Bytes() = %q, %v; want %q", out, err, fmText)
		}
		for _, l := range n.Links {
			if l.Offset < n.BodyOffset || !bytes.HasPrefix(content[l.Offset:l.End], []byte("[[")) || !bytes.HasSuffix(content[l.Offset:l.End], []byte("]]")) {
				t.Fatalf("link %+v", l)
			}
			if want := 1 + bytes.Count(content[:l.Offset], []byte("\n")); l.Line != want {
				t.Fatalf("link %+v: line %d, want %d", l, l.Line, want)
			}
		}
	})
}

// benchNote is a typical note: about 1.5 KB, front matter, 8 links, a code
// block, a list and a table.
var benchNote = func() string {
	s := `---
title: Gradient Checkpointing
tags: [ml, training, memory]
aliases: [Activation Checkpointing]
created: 2024-03-01
modified: 2024-05-12T09:30:00Z
---
# Gradient Checkpointing

Gradient checkpointing trades compute for memory: instead of keeping every
activation of the forward pass for [[Backpropagation]], it keeps only a few
*checkpoints* and recomputes the rest during the backward pass. It pairs well
with [[Mixed Precision Training|mixed precision]] and [[ZeRO]] sharding.

## When to use it

- Long sequences in a [[Transformer]] where activations dominate memory.
- Large batch sizes on a single GPU, see [[GPU Memory#Budgets]].
- Fine-tuning with [[LoRA]] adapters when the base model barely fits.

` + "```python" + `
model.gradient_checkpointing_enable()  # [[not a link]]
loss = model(**batch).loss
loss.backward()
` + "```" + `

| Setting | Memory | Speed |
|---------|--------|-------|
| off     | 100%   | 1.0x  |
| on      | ~35%   | 0.75x |

In practice the memory saved grows with depth: a 48-layer model that keeps one
checkpoint every few layers stores a small fraction of its activations, while
the recomputation stays bounded by a single forward pass per segment. The
scheme composes with pipeline parallelism, since each stage checkpoints its own
layers, and with offloading, which moves the remaining checkpoints to host
memory between the passes. Profilers show the extra kernels clearly, so it is
easy to check that the trade is worth it on a given workload.

The cost is roughly one extra forward pass. Use ` + "`torch.utils.checkpoint`" + `
for custom modules; keep [[Dropout]] deterministic with a saved RNG state.
Related reading: ![[Activation Memory Diagram]].
`
	return s
}()

func TestBenchNoteShape(t *testing.T) {
	n, err := Parse("notes/gc.md", []byte(benchNote))
	if err != nil {
		t.Fatal(err)
	}
	if len(benchNote) < 1400 || len(benchNote) > 1700 || len(n.Links) != 8 {
		t.Errorf("bench note: %d bytes, %d links; want ~1.5 KB and 8", len(benchNote), len(n.Links))
	}
}

func BenchmarkParse(b *testing.B) {
	content := []byte(benchNote)
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("notes/gc.md", content); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseLinks(b *testing.B) {
	_, body, off, line := SplitFrontMatter([]byte(benchNote))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		ParseLinks(body, off, line)
	}
}

func ExampleParse() {
	n, _ := Parse("notes/gc.md", []byte("---\ntitle: Gradient Checkpointing\ntags: ml\n---\nSaves [[GPU Memory|memory]].\n"))
	fmt.Println(n.Title, n.Tags)
	for _, l := range n.Links {
		fmt.Printf("%s (key %q) at line %d\n", l.Target, l.Key, l.Line)
	}
	// Output:
	// Gradient Checkpointing [ml]
	// GPU Memory (key "gpu memory") at line 5
}
