package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/noema-mem/noema/notes"
)

const noteUsage = `note COMMAND [ARGS]

  write   --title T [--folder F] [--tag X]… [--alias A]… [--overwrite] [--content C | stdin]
  read    REF                        (REF: memory:// URI, vault path or title)
  edit    REF --op append|prepend|find_replace|replace_section|replace_all
          [--content C | stdin] [--find F --replace R [--count N]] [--section H] [--checksum C]
  move    FROM TO
  delete  REF --confirm
  list    [--folder F] [--tag T] [--offset N] [--limit N]
  recent  [--since 7d|24h|2026-01-02] [--limit N]`

func runNote(ctx context.Context, m *Main, args []string) (any, error) {
	sub, args, ok, err := m.subcommand("note", noteUsage, args)
	if !ok {
		return nil, err
	}
	fs := flag.NewFlagSet("note "+sub, flag.ContinueOnError)
	var (
		title, folder, content, op, find, replace, section, checksum, since, tag string
		tags, aliases                                                            stringList
		overwrite, confirm                                                       bool
		count, offset, limit                                                     int
	)
	var min, max int // positional argument bounds
	switch sub {
	case "write":
		fs.StringVar(&title, "title", "", "the note's title (required)")
		fs.StringVar(&folder, "folder", "", "vault folder")
		fs.Var(&tags, "tag", "a tag (repeatable)")
		fs.Var(&aliases, "alias", "an alias (repeatable)")
		fs.BoolVar(&overwrite, "overwrite", false, "replace an existing note with this title")
		fs.StringVar(&content, "content", "", "the Markdown body (default: read stdin)")
	case "read":
		min, max = 1, 1
	case "edit":
		min, max = 1, 1
		fs.StringVar(&op, "op", "", "append, prepend, find_replace, replace_section or replace_all")
		fs.StringVar(&content, "content", "", "the text (default: read stdin for ops that need it)")
		fs.StringVar(&find, "find", "", "find_replace: text to find")
		fs.StringVar(&replace, "replace", "", "find_replace: replacement")
		fs.IntVar(&count, "count", 0, "find_replace: expected occurrences (default 1)")
		fs.StringVar(&section, "section", "", "replace_section: heading text")
		fs.StringVar(&checksum, "checksum", "", "fail unless the file still has this checksum")
	case "move":
		min, max = 2, 2
	case "delete":
		min, max = 1, 1
		fs.BoolVar(&confirm, "confirm", false, "really delete the note")
	case "list":
		fs.StringVar(&folder, "folder", "", "only notes under this folder")
		fs.StringVar(&tag, "tag", "", "only notes with this tag")
		fs.IntVar(&offset, "offset", 0, "paging offset")
		fs.IntVar(&limit, "limit", notes.DefaultLimit, "page size (max 500)")
	case "recent":
		fs.StringVar(&since, "since", "", "only notes active since (RFC 3339, date, or 24h / 7d)")
		fs.IntVar(&limit, "limit", 20, "how many (max 500)")
	default:
		return nil, usagef("unknown note command %q\n\nUsage: noema %s", sub, noteUsage)
	}
	pos, err := m.parseFlags(fs, "note "+sub, args)
	if err != nil {
		return nil, err
	}
	if len(pos) < min || len(pos) > max {
		return nil, usagef("note %s takes %d argument(s), got %d", sub, max, len(pos))
	}
	readContent := func() (string, error) {
		if content != "" || m.Stdin == nil {
			return content, nil
		}
		b, err := readAll(ctx, m.Stdin)
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		return string(b), nil
	}
	a, err := m.open(ctx)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	svc := a.Notes
	switch sub {
	case "write":
		if strings.TrimSpace(title) == "" {
			return nil, usagef("note write needs --title")
		}
		c, err := readContent()
		if err != nil {
			return nil, err
		}
		return svc.Write(ctx, notes.WriteInput{Title: title, Content: c, Folder: folder, Tags: tags, Aliases: aliases, Overwrite: overwrite})
	case "read":
		n, err := svc.Read(ctx, pos[0])
		if err != nil {
			return nil, err
		}
		if !m.json {
			fmt.Fprint(m.Stdout, n.Content)
			return nil, nil
		}
		return n, nil
	case "edit":
		in := notes.EditInput{URI: pos[0], Op: op, Find: find, Replace: replace, ExpectedCount: count, Section: section, ExpectedChecksum: checksum}
		if op != notes.OpFindReplace {
			if in.Content, err = readContent(); err != nil {
				return nil, err
			}
		}
		return svc.Edit(ctx, in)
	case "move":
		return svc.Move(ctx, pos[0], pos[1])
	case "delete":
		return svc.Delete(ctx, pos[0], confirm)
	case "list":
		return svc.List(ctx, notes.ListInput{Folder: folder, Tag: tag, Offset: offset, Limit: limit})
	case "recent":
		return svc.Recent(ctx, notes.RecentInput{Since: since, Limit: limit})
	}
	return nil, nil
}

// readAll reads r to its end, or until ctx is done: a read of a terminal or
// a pipe that nobody closes must not keep an interrupted command waiting.
// (The abandoned read ends with the process.)
func readAll(ctx context.Context, r io.Reader) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(r)
		done <- result{b, err}
	}()
	select {
	case res := <-done:
		return res.b, res.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}
