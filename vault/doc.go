// Package vault reads and writes the Markdown files that are noema's source of
// truth. A vault is a folder of notes (an Obsidian vault works as is); the
// index in <vault>/.noema/ is only a cache rebuilt from what this package
// parses.
//
// The package has five parts:
//
//   - Names: [Key] normalizes a concept label (so "Gradient_Checkpointing" and
//     "gradient checkpointing" are one concept), [FileName] names a note's
//     file by its title as Obsidian does, and [Slug] is the lowercase,
//     dash-separated name older versions gave notes.
//   - Markdown: [ParseLinks] finds the WikiLinks of a body, following the
//     CommonMark block structure so that links in code and HTML blocks do not
//     count, and [FindSection] locates the text under a heading.
//   - Notes: [SplitFrontMatter], [ParseFrontMatter] and [Join] take a file
//     apart and put it back together; [FrontMatter] keeps the YAML as a node
//     tree, so unknown keys, their order, comments and styles survive a
//     rewrite. [Parse] turns a file into a [Note].
//   - Files: [Vault] confines caller-supplied paths to the vault ([Vault.Rel],
//     [Vault.Abs]; symbolic links never lead out of it or into a dot-folder),
//     refuses non-portable names for the files it creates
//     ([CheckPortableName]), writes atomically ([Writer.WriteFile]), serializes
//     every read-modify-write among goroutines and processes with the vault's
//     write lock, whose held form [Writer] every change goes through
//     ([Vault.Locked], [Writer.ReplaceFile]), walks the notes
//     ([Vault.Walk]), applies changes to many files all-or-nothing, even
//     across a crash ([noema.Changeset], [Writer.Apply], [Vault.Recover]) and
//     removes temporary files left by killed writers ([Vault.CleanTemps]).
//     Note identifiers are memory:// URIs ([noema.NoteURI], [URIToPath]).
//   - Store: [Store] is the vault as a [noema.Store], the folder store of
//     record: each call one critical section under the write lock, and a
//     change feed kept in .noema/changes.log of every change a [Writer]
//     makes (see docs/decisions.md, "The store of record as a port").
//
// Errors meant for a caller carry a stable code from the root package
// (noema.EINVALID, noema.ENOTFOUND, noema.ECONFLICT).
package vault
