package tools

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/importer"
)

// ImportFileInput names the file an import reads.
type ImportFileInput struct {
	File   string `json:"file" jsonschema:"the file to import" cli:"arg=FILE"`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"report what the import would create, skip and not map, and write nothing (default false)" default:"false"`
}

// ImportDirInput names the folder an import reads.
type ImportDirInput struct {
	Dir    string `json:"dir" jsonschema:"the folder to import" cli:"arg=DIR"`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"report what the import would create, skip and not map, and write nothing (default false)" default:"false"`
}

// importer returns the import service of the app's vault.
func importerOf(e *Env) *importer.Service {
	return importer.New(e.App.Vault, e.App.DB.Concepts(), e.App.Indexer, e.App.Config.MaxNoteBytes)
}

// importTools are command-line only: an import reads files of the machine
// it runs on, which an MCP client must not name.
func importTools() []*Tool {
	const all = "All of it is one change, recorded in the operation log (undo_operation reverts it): bad input changes nothing. " +
		"Run again, it creates nothing twice. With --dry-run, report and write nothing. docs/imports.md has the mapping."
	return []*Tool{
		New(Def{
			Command: "import memory-jsonl", Title: "Import an MCP memory server file",
			Description: "Import the official MCP memory server's memory.jsonl: each entity becomes a concept page (concepts/<Name>.md) with its " +
				"entityType as `type` and its observations as bullets under ## Observations; each relation a typed relation. " + all,
		}, func(ctx context.Context, e *Env, in ImportFileInput) (*importer.Report, error) {
			f, err := openInput(in.File)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return importerOf(e).ImportMemoryJSONL(ctx, f, importer.Options{DryRun: in.DryRun})
		}, textImport),

		New(Def{
			Command: "import basic-memory", Title: "Import a basic-memory folder",
			Description: "Import a basic-memory project folder: every Markdown file becomes a note at the same path, its text as it is (observations " +
				"`- [category] text #tag (context)` stay readable lines and their #tags become the note's tags); every `- relation_type [[Target]]` line " +
				"is also declared as a typed relation in the note's front matter. Dot-folders are left out; other files are reported as not mapped. " + all,
		}, func(ctx context.Context, e *Env, in ImportDirInput) (*importer.Report, error) {
			return importerOf(e).ImportBasicMemory(ctx, in.Dir, importer.Options{DryRun: in.DryRun})
		}, textImport),

		New(Def{
			Command: "import mem0", Title: "Import a mem0 export",
			Description: "Import mem0's export JSON (get_all's {\"results\": […]}, or the list itself): every memory becomes one dated note, " +
				"mem0/<user>/<YYYY-MM-DD> <first words>.md, with the memory as its text and its id, user/agent/run/app ids, times, categories and " +
				"metadata in its front matter; a memory whose id a note already records is skipped. " + all,
		}, func(ctx context.Context, e *Env, in ImportFileInput) (*importer.Report, error) {
			f, err := openInput(in.File)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return importerOf(e).ImportMem0(ctx, f, importer.Options{DryRun: in.DryRun})
		}, textImport),
	}
}

// openInput opens a file to import: not_found when it is missing.
func openInput(name string) (*os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, noema.Errorf(noema.ENOTFOUND, "no file %s", name)
		}
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, noema.Errorf(noema.EINVALID, "%s is a folder, not a file", name)
	}
	return f, nil
}

func textImport(w io.Writer, r *importer.Report) {
	fmt.Fprintln(w, r.Message)
	for _, it := range r.CouldNotMap[:min(len(r.CouldNotMap), 50)] {
		fmt.Fprintf(w, "- could not map %s %q (%s): %s\n", it.Kind, it.Name, it.Record, it.Reason)
	}
	if more := len(r.CouldNotMap) - 50; more > 0 {
		fmt.Fprintf(w, "- … and %d more (--json lists them all)\n", more)
	}
}
