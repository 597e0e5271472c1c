// Command noema-corpus writes a deterministic synthetic vault of Markdown
// notes, for benchmarks and end-to-end tests.
//
//	noema-corpus -seed 42 -notes 10000 -links 8 -out DIR [-json manifest.json]
//
// The same flags always produce byte-identical files. With -json the manifest
// (per note: path, title, real links in order; totals) is written to the
// given file, or to standard output for "-".
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := &Main{Stdout: os.Stdout, Stderr: os.Stderr}
	err := m.Run(ctx, os.Args[1:])
	if err == nil {
		return
	}
	var u usageError
	if errors.As(err, &u) {
		if u.err != nil {
			fmt.Fprintln(os.Stderr, "noema-corpus:", u.err)
		}
		os.Exit(2)
	}
	fmt.Fprintln(os.Stderr, "noema-corpus:", err)
	os.Exit(1)
}
