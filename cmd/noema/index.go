package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/indexer"
)

func runSync(ctx context.Context, m *Main, args []string) (any, error) {
	return m.syncCommand(ctx, "sync", false, args)
}

func runReindex(ctx context.Context, m *Main, args []string) (any, error) {
	return m.syncCommand(ctx, "reindex", true, args)
}

func (m *Main) syncCommand(ctx context.Context, name string, rebuild bool, args []string) (any, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	embed := fs.Bool("embed", false, "also embed concepts and note chunks now (the servers do it in the background)")
	if _, err := m.parseFlags(fs, name+" [--embed]", args); err != nil {
		return nil, err
	}
	a, err := m.open(ctx)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	bar := m.progressBar(name)
	res, err := a.Sync(ctx, rebuild, bar.update)
	bar.finish()
	if err != nil {
		return nil, err
	}
	if *embed {
		if err := a.Semantic.Refresh(ctx); err != nil {
			return nil, err
		}
		if err := a.Semantic.RefreshChunks(ctx); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func textSync(w io.Writer, v any) {
	r := v.(*indexer.Result)
	fmt.Fprintf(w, "scanned %d files: %d added, %d updated, %d renamed, %d removed, %d unchanged, %d skipped (%d ms)\n",
		r.Scanned, r.Added, r.Updated, r.Renamed, r.Removed, r.Unchanged, r.Skipped, r.DurationMS)
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s: %s: %s\n", warn.Path, warn.Code, warn.Message)
	}
}

func runStatus(ctx context.Context, m *Main, args []string) (any, error) {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	if _, err := m.parseFlags(fs, "status", args); err != nil {
		return nil, err
	}
	a, err := m.open(ctx)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	return a.Status(ctx)
}

func textStatus(w io.Writer, v any) {
	s := v.(*app.Status)
	fmt.Fprintf(w, "vault:     %s\nindex:     %s\n", s.Vault, s.Index)
	fmt.Fprintf(w, "notes:     %d\nconcepts:  %d\nmentions:  %d (%d links)\nrelations: %d\n",
		s.Notes, s.Concepts, s.Mentions, s.Links, s.Relations)
	if s.LastSync.IsZero() {
		fmt.Fprintln(w, "last sync: never (run `noema sync`)")
	} else {
		fmt.Fprintf(w, "last sync: %s\n", s.LastSync.Local().Format(time.RFC3339))
	}
	e := s.Embeddings
	fmt.Fprintf(w, "embedder:  %s (%d dims)", e.Embedder, e.Dimension)
	if e.Concepts > 0 || e.Running {
		fmt.Fprintf(w, ", %d of %d concepts embedded", e.Embedded, e.Concepts)
	}
	if e.Chunks > 0 || e.ChunkNotesPending > 0 {
		fmt.Fprintf(w, ", %d of %d note chunks embedded", e.ChunksEmbedded, e.Chunks)
	}
	if e.LastError != "" {
		fmt.Fprintf(w, ", last error: %s", e.LastError)
	}
	fmt.Fprintln(w)
	if r := s.RecoveredChangeset; r != nil {
		fmt.Fprintf(w, "recovered: an unfinished change to %d files, %s at %s\n",
			len(r.Files), strings.ReplaceAll(r.Action, "_", " "), r.At.Local().Format(time.RFC3339))
		for _, p := range r.Conflicts {
			fmt.Fprintf(w, "  left as another program changed it: %s\n", p)
		}
	}
	for _, warn := range s.Warnings {
		fmt.Fprintf(w, "  warning: %s: %s: %s\n", warn.Path, warn.Code, warn.Message)
	}
}

func runVersion(ctx context.Context, m *Main, args []string) (any, error) {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	fmt.Fprintln(m.Stdout, "noema", v)
	return nil, nil
}

// progress draws a bar on stderr when it is a terminal and --json is off.
type progress struct {
	w       io.Writer
	label   string
	enabled bool
	drawn   bool
	last    time.Time
}

func (m *Main) progressBar(label string) *progress {
	p := &progress{w: m.Stderr, label: label}
	if f, ok := m.Stderr.(*os.File); ok && !m.json && term.IsTerminal(int(f.Fd())) {
		p.enabled = true
	}
	return p
}

func (p *progress) update(done, total int) {
	if !p.enabled || total == 0 {
		return
	}
	if done < total && time.Since(p.last) < 80*time.Millisecond {
		return
	}
	p.last = time.Now()
	const width = 30
	fill := width * done / total
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d", p.label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), done, total)
	p.drawn = true
}

func (p *progress) finish() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
