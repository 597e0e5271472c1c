package tools

import (
	"fmt"
	"io"

	"github.com/noema-mem/noema/notes"
)

func vaultTools() []*Tool {
	return []*Tool{
		New(Def{
			Command: "vault rename-files", Title: "Rename slug-named notes by title",
			Description: "Rename the notes older noema versions named by slug (garbage-collection.md) to their title as Obsidian names files " +
				"(Garbage Collection.md), in the same folder, and rewrite the links that name them by path. All files change together (a crash leaves " +
				"the vault as it was or as it becomes). With --dry-run, show the renames and the changed lines and change nothing.",
		}, calls(onNotes, (*notes.Service).RenameFiles), func(w io.Writer, o *notes.RenameFilesResult) {
			verb := "renamed"
			if o.DryRun {
				verb = "would rename"
			}
			fmt.Fprintf(w, "%s %d notes, rewriting %d lines of links\n", verb, len(o.Renamed), len(o.Links))
			for _, r := range o.Renamed {
				fmt.Fprintf(w, "- %s -> %s\n", r.From, r.To)
			}
			for _, l := range o.Links {
				fmt.Fprintf(w, "  %s:%d\n    - %s\n    + %s\n", l.URI, l.Line, l.Before, l.After)
			}
		}),
	}
}
