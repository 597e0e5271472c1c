package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/noema-mem/noema/internal/corpus"
)

// Main is the command, with its output streams injected for tests.
type Main struct {
	Stdout io.Writer
	Stderr io.Writer
}

// usageError marks a command-line mistake (exit status 2). A nil err means
// the usage was already printed (-h).
type usageError struct{ err error }

func (u usageError) Error() string {
	if u.err == nil {
		return "usage requested"
	}
	return u.err.Error()
}

func (u usageError) Unwrap() error { return u.err }

// Run parses args, generates the vault and prints a one-line summary.
func (m *Main) Run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("noema-corpus", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	var (
		opts     corpus.Options
		out      string
		manifest string
	)
	fs.Uint64Var(&opts.Seed, "seed", 42, "random seed; the same flags give byte-identical output")
	fs.IntVar(&opts.Notes, "notes", 1000, "number of notes")
	fs.IntVar(&opts.LinksPerNote, "links", corpus.DefaultLinksPerNote, "real links per note (negative: none)")
	fs.IntVar(&opts.Concepts, "concepts", 0, "vocabulary size (0: notes/4, at least 50)")
	fs.IntVar(&opts.TargetBytes, "bytes", corpus.DefaultTargetBytes, "approximate size of each note in bytes")
	fs.IntVar(&opts.Folders, "folders", corpus.DefaultFolders, "number of folders, the root included")
	fs.Float64Var(&opts.VariantRate, "variant-rate", corpus.DefaultVariantRate, "share of links written as a spelling variant (negative: none)")
	fs.Float64Var(&opts.FakeLinkRate, "fake-rate", corpus.DefaultFakeLinkRate, "share of notes with [[links]] inside code (negative: none)")
	fs.Float64Var(&opts.FrontMatterRate, "frontmatter-rate", corpus.DefaultFrontMatterRate, "share of notes with YAML front matter (negative: none)")
	fs.StringVar(&out, "out", "", "vault directory to create (must be empty or absent; required)")
	fs.StringVar(&manifest, "json", "", `write the manifest as JSON to this file ("-": standard output)`)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: noema-corpus -out DIR [-seed N] [-notes N] [-links M] [-json FILE] [flags]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return usageError{}
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	if out == "" {
		fs.Usage()
		return usageError{errors.New("-out is required")}
	}
	if opts.Notes <= 0 {
		return usageError{errors.New("-notes must be positive")}
	}

	start := time.Now()
	man, err := corpus.Generate(ctx, out, opts)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	if manifest != "" {
		if err := m.writeManifest(manifest, man); err != nil {
			return err
		}
	}
	t := man.Totals
	summary := m.Stdout
	if manifest == "-" {
		summary = m.Stderr
	}
	fmt.Fprintf(summary, "wrote %d notes (%d links, %d variant, %d in code; %d concepts; %.1f MB) to %s in %s\n",
		t.Notes, t.Links, t.VariantLinks, t.FakeLinks, t.Concepts, float64(t.Bytes)/1e6, out, elapsed.Round(time.Millisecond))
	return nil
}

// writeManifest writes man as indented JSON to name, or to Stdout for "-".
func (m *Main) writeManifest(name string, man *corpus.Manifest) error {
	b, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	b = append(b, '\n')
	if name == "-" {
		_, err = m.Stdout.Write(b)
		return err
	}
	if err := os.WriteFile(name, b, 0o644); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	return nil
}
