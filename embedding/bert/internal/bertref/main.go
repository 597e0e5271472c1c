// Command bertref makes the inputs of the encoder's reference checks and
// measures its speed; .ci/bert-reference runs it.
//
//	bertref ids -model DIR -n 600 -out IDS.jsonl
//	    deterministic sentences of mixed lengths (short labels, paragraphs,
//	    texts past the maximum length), tokenized with DIR/tokenizer.json and
//	    truncated at the model's maximum length: {"text", "ids"} a line.
//	bertref bench -model DIR [-threads 1,2] [-seconds 3]
//	    sentences per second for short labels (<= 8 tokens) and 256-token
//	    chunks, on each thread count.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/noema-mem/noema/embedding/bert"
	"github.com/noema-mem/noema/embedding/bert/gemm"
	"github.com/noema-mem/noema/internal/cputime"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bertref ids|bench [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "ids":
		err = ids(os.Args[2:])
	case "bench":
		err = bench(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bertref:", err)
		os.Exit(1)
	}
}

var fixed = []string{
	"Garbage collector", "Garbage Collection", "G1", "gradient checkpointing", "memory consolidation",
	"PostgreSQL write-ahead log", "The quick brown fox jumps over the lazy dog.", "café naïve résumé",
	"東京 is the capital of Japan", "emoji 😀 and ✓ marks", "", "a",
}

func sentences(vocab []string, n, longEvery int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 7))
	out := append([]string(nil), fixed...)
	for len(out) < n {
		var k int
		switch {
		case len(out)%longEvery == longEvery-1:
			k = 150 + r.IntN(350)
		case len(out)%2 == 0:
			k = 1 + r.IntN(5)
		default:
			k = 10 + r.IntN(60)
		}
		var b strings.Builder
		for i := 0; i < k; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			w := vocab[r.IntN(len(vocab))]
			if i == 0 || r.IntN(12) == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
			if r.IntN(10) == 0 {
				b.WriteString([]string{".", ",", ";", "!", "?"}[r.IntN(5)])
			}
		}
		out = append(out, b.String())
	}
	return out[:n]
}

// vocabWords returns the tokenizer's whole-word, alphabetic entries.
func vocabWords(dir string) ([]string, error) {
	b, err := os.ReadFile(dir + "/tokenizer.json")
	if err != nil {
		return nil, err
	}
	var f struct {
		Model struct {
			Vocab map[string]int `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	var out []string
	for w := range f.Model.Vocab {
		if len(w) < 2 || strings.HasPrefix(w, "##") || strings.HasPrefix(w, "[") {
			continue
		}
		alpha := true
		for _, c := range w {
			if c > unicode.MaxASCII || !unicode.IsLetter(c) {
				alpha = false
				break
			}
		}
		if alpha {
			out = append(out, w)
		}
	}
	// Map iteration order is random: sort for determinism.
	sort.Strings(out)
	return out, nil
}

func ids(args []string) error {
	fs := flag.NewFlagSet("ids", flag.ExitOnError)
	dir := fs.String("model", "", "model folder")
	n := fs.Int("n", 600, "number of texts")
	out := fs.String("out", "", "output file")
	seed := fs.Uint64("seed", 1, "seed")
	longEvery := fs.Int("long-every", 3, "one text in this many is long (150 to 500 words, past the maximum length)")
	fs.Parse(args)
	e, err := bert.Load(bert.Options{Dir: *dir})
	if err != nil {
		return err
	}
	vocab, err := vocabWords(*dir)
	if err != nil {
		return err
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, s := range sentences(vocab, *n, max(*longEvery, 2), *seed) {
		if err := enc.Encode(map[string]any{"text": s, "ids": e.Tokenizer().EncodeMax(s, e.MaxLength())}); err != nil {
			return err
		}
	}
	return f.Close()
}

func bench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	dir := fs.String("model", "", "model folder")
	threadList := fs.String("threads", "1,2", "thread counts")
	seconds := fs.Float64("seconds", 3, "seconds per measurement")
	fs.Parse(args)
	fmt.Printf("kernel: %s\n", gemm.KernelName())
	for _, ts := range strings.Split(*threadList, ",") {
		threads, err := strconv.Atoi(ts)
		if err != nil {
			return err
		}
		t0 := time.Now()
		e, err := bert.Load(bert.Options{Dir: *dir, Threads: threads})
		if err != nil {
			return err
		}
		load := time.Since(t0)
		t0 = time.Now()
		if _, err := e.Embed(context.Background(), []string{"first embedding"}); err != nil {
			return err
		}
		fmt.Printf("go threads=%d: model loaded in %v, first text embedded %v later\n", threads, load.Round(time.Millisecond), time.Since(t0).Round(time.Microsecond))
		for _, shape := range BenchShapes {
			seqs := BenchIDs(shape.Tokens, shape.Batch)
			// warm up
			if _, err := e.EmbedIDs(context.Background(), seqs); err != nil {
				return err
			}
			start, cpu0 := time.Now(), cputime.Process()
			done := 0
			for time.Since(start).Seconds() < *seconds {
				if _, err := e.EmbedIDs(context.Background(), seqs); err != nil {
					return err
				}
				done += len(seqs)
			}
			el := time.Since(start).Seconds()
			cpu := (cputime.Process() - cpu0).Seconds()
			fmt.Printf("go threads=%d %s: %.1f sentences/s (%.1f per CPU-second, %.2f cores busy)\n", threads, shape.Name, float64(done)/el, float64(done)/cpu, cpu/el)
		}
	}
	return nil
}

// BenchShape is one speed measurement's input.
type BenchShape struct {
	Name          string
	Tokens, Batch int
}

// BenchShapes are the inputs measured, the same as e2e/node/bert-reference.mjs.
var BenchShapes = []BenchShape{
	{"labels (8 tokens, batches of 64)", 8, 64},
	{"chunks (256 tokens, batches of 8)", 256, 8},
}

// BenchIDs returns batch sequences of n token ids: [CLS], ids 1000+i*37
// mod 20000, [SEP] — the same in the node script.
func BenchIDs(n, batch int) [][]int32 {
	out := make([][]int32, batch)
	for b := range out {
		q := make([]int32, n)
		q[0], q[n-1] = 101, 102
		for i := 1; i < n-1; i++ {
			q[i] = int32(1000 + (b*131+i*37)%20000)
		}
		out[b] = q
	}
	return out
}
