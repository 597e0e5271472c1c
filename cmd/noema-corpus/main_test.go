package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema/internal/corpus"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "vault")
	manifest := filepath.Join(dir, "manifest.json")
	var stdout, stderr bytes.Buffer
	m := &Main{Stdout: &stdout, Stderr: &stderr}
	err := m.Run(context.Background(), []string{"-seed", "42", "-notes", "30", "-links", "5", "-out", out, "-json", manifest})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "wrote 30 notes (150 links") {
		t.Errorf("summary = %q", stdout.String())
	}
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var man corpus.Manifest
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	if man.Options.Seed != 42 || len(man.Notes) != 30 || man.Totals.Links != 150 {
		t.Errorf("manifest options %+v, %d notes, totals %+v", man.Options, len(man.Notes), man.Totals)
	}
	for _, n := range man.Notes {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(n.Path))); err != nil {
			t.Error(err)
		}
	}

	// The same flags into another directory, manifest on stdout: same manifest.
	stdout.Reset()
	if err := m.Run(context.Background(), []string{"-seed", "42", "-notes", "30", "-links", "5", "-out", filepath.Join(dir, "again"), "-json", "-"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stdout.Bytes(), b) {
		t.Error("manifest on stdout differs from the file written with the same flags")
	}
}

func TestRunUsage(t *testing.T) {
	scenarios := []struct {
		Name string
		Args []string
	}{
		{"MissingOut", []string{"-notes", "3"}},
		{"BadFlag", []string{"-nope"}},
		{"ExtraArg", []string{"-out", "x", "extra"}},
		{"ZeroNotes", []string{"-out", "x", "-notes", "0"}},
		{"Help", []string{"-h"}},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := (&Main{Stdout: &stdout, Stderr: &stderr}).Run(context.Background(), sc.Args)
			var u usageError
			if !errors.As(err, &u) {
				t.Errorf("err = %v, want a usage error", err)
			}
		})
	}
}

func TestRunNotEmpty(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep.md"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := (&Main{Stdout: &stdout, Stderr: &stderr}).Run(context.Background(), []string{"-out", dir, "-notes", "2"})
	var u usageError
	if err == nil || errors.As(err, &u) {
		t.Errorf("err = %v, want a run error", err)
	}
}
