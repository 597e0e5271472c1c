// Package importer brings memories kept by other tools into a vault, and
// writes a vault back out in the official MCP memory server's format:
//
//   - memory-jsonl: the memory server's JSON Lines file of entities
//     (name, entityType, observations) and relations (from, relationType,
//     to). Each entity becomes a concept page, concepts/<Name>.md, whose
//     front matter holds the concept's name, its `type` (the entityType)
//     and one link property per relation type, and whose "## Observations"
//     section lists the observations, one bullet each. [WriteMemoryJSONL]
//     writes the same format from a vault's graph.
//   - basic-memory: a folder of basic-memory's Markdown notes. Each file
//     becomes a note at the same relative path, its text kept as it is
//     (observations `- [category] text #tag (context)` stay readable lines,
//     their #tags become the note's tags), and each `- relation_type
//     [[Target]]` line also becomes a typed relation in the front matter.
//   - mem0: mem0's export JSON (a list of memories, or an object holding
//     one under "results" or "memories"). Each memory becomes one dated
//     note, mem0/<user>/<YYYY-MM-DD> <first words>.md, whose front matter
//     keeps its id, owner ids, times, categories and metadata.
//
// Every import is planned whole before anything is written, then applied
// as one changeset (all files or none, even across a crash) recorded in
// the vault's operation log as "import <source>", so undo_operation
// reverts it. Running an import again creates nothing twice: what the
// vault already holds is reported as skipped. A [Report] lists what was
// created, what was skipped and what could not be mapped (a name noema
// cannot use as a concept label, a relation type it refuses), with the
// line or record of each.
//
// Input that is not what its format says — a truncated or malformed line,
// an unknown record type, invalid UTF-8, a name that tries to leave the
// vault ("../x"), a file above the size bound, a name that collides with a
// note the import did not make — is an error with a stable code
// (invalid_argument, too_large, conflict) whose message names the line,
// record or file, and the import changes nothing. docs/imports.md is the
// user's guide.
package importer
