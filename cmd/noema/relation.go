package main

import (
	"context"
	"flag"
	"strconv"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/relations"
)

const relationUsage = `relation COMMAND [ARGS]

  create  FROM TYPE TO [--weight W] [--metadata JSON]   (FROM/TO: concept id, label or alias, or memory:// URI)
  update  ID [--type T] [--weight W] [--metadata JSON] [--metadata-remove K]… [--metadata-replace]
  delete  ID
  show    ID`

func runRelation(ctx context.Context, m *Main, args []string) (any, error) {
	sub, args, ok, err := m.subcommand("relation", relationUsage, args)
	if !ok {
		return nil, err
	}
	fs := flag.NewFlagSet("relation "+sub, flag.ContinueOnError)
	var weight, meta, typ string
	var metaRemove stringList
	var metaReplace bool
	nargs := 1
	switch sub {
	case "create":
		nargs = 3
		fs.StringVar(&weight, "weight", "", "a number")
		fs.StringVar(&meta, "metadata", "", "a JSON object")
	case "update":
		fs.StringVar(&typ, "type", "", "new type")
		fs.StringVar(&weight, "weight", "", "new weight")
		fs.StringVar(&meta, "metadata", "", "a JSON object to merge")
		fs.Var(&metaRemove, "metadata-remove", "a metadata key to remove (repeatable)")
		fs.BoolVar(&metaReplace, "metadata-replace", false, "replace the whole metadata object")
	case "delete", "show":
	default:
		return nil, usagef("unknown relation command %q\n\nUsage: noema %s", sub, relationUsage)
	}
	pos, err := m.parseFlags(fs, "relation "+sub, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != nargs {
		return nil, usagef("relation %s takes %d argument(s), got %d", sub, nargs, len(pos))
	}
	var w *float64
	if weight != "" {
		f, err := strconv.ParseFloat(weight, 64)
		if err != nil {
			return nil, noema.Errorf(noema.EINVALID, "--weight must be a number")
		}
		w = &f
	}
	metadata, err := parseMetadata(meta)
	if err != nil {
		return nil, err
	}
	a, err := m.open(ctx)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	switch sub {
	case "create":
		return a.Relations.Create(ctx, relations.CreateInput{From: pos[0], Type: pos[1], To: pos[2], Weight: w, Metadata: metadata})
	case "update":
		return a.Relations.Update(ctx, relations.UpdateInput{ID: pos[0], Type: typ, Weight: w, Metadata: metadata, MetadataRemove: metaRemove, MetadataReplace: metaReplace})
	case "delete":
		return a.Relations.Delete(ctx, pos[0])
	case "show":
		return a.Relations.Get(ctx, pos[0])
	}
	return nil, nil
}
