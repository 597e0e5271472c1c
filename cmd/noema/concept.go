package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/semantic"
)

const conceptUsage = `concept COMMAND [ARGS]

  find    QUERY [--limit N] [--min-score S] [--processor default|none]
  similar NAME [--max N] [--no-decay]    (meaning-based neighbours, weighted by recency)
  list    [--text T] [--match contains|starts_with|ends_with] [--offset N] [--limit N]
  create  LABEL [--alias A]… [--description D] [--metadata JSON]
  show    CONCEPT                      (CONCEPT: id, label or alias)
  update  CONCEPT [--label L] [--alias A]… (replace) [--add-alias A]… [--description D]
          [--metadata JSON] [--metadata-remove K]… [--metadata-replace]
  delete  CONCEPT [--unlink]`

func runConcept(ctx context.Context, m *Main, args []string) (any, error) {
	sub, args, ok, err := m.subcommand("concept", conceptUsage, args)
	if !ok {
		return nil, err
	}
	fs := flag.NewFlagSet("concept "+sub, flag.ContinueOnError)
	var (
		limit, offset                                    int
		minScore                                         float64
		processor, text, match, description, meta, label string
		aliases, addAliases, metaRemove                  stringList
		unlink, metaReplace, descriptionSet, noDecay     bool
	)
	nargs := 1
	switch sub {
	case "find":
		fs.IntVar(&limit, "limit", concepts.DefaultFindLimit, "how many candidates (max 500)")
		fs.Float64Var(&minScore, "min-score", 0, "drop candidates below this score (0-100)")
		fs.StringVar(&processor, "processor", "default", "default or none")
	case "similar":
		fs.IntVar(&limit, "max", 10, "how many neighbours (max 200)")
		fs.BoolVar(&noDecay, "no-decay", false, "rank by similarity alone")
	case "list":
		nargs = 0
		fs.StringVar(&text, "text", "", "only concepts with a name matching this")
		fs.StringVar(&match, "match", "contains", "contains, starts_with or ends_with")
		fs.IntVar(&offset, "offset", 0, "paging offset")
		fs.IntVar(&limit, "limit", concepts.DefaultListLimit, "page size (max 500)")
	case "create":
		fs.Var(&aliases, "alias", "an alias (repeatable)")
		fs.StringVar(&description, "description", "", "what the concept means")
		fs.StringVar(&meta, "metadata", "", "a JSON object")
	case "show":
	case "update":
		fs.StringVar(&label, "label", "", "new label (the old one stays as an alias)")
		fs.Var(&aliases, "alias", "replace the aliases with these (repeatable)")
		fs.Var(&addAliases, "add-alias", "an alias to add (repeatable)")
		fs.Func("description", "new description", func(v string) error { description, descriptionSet = v, true; return nil })
		fs.StringVar(&meta, "metadata", "", "a JSON object to merge into the metadata")
		fs.Var(&metaRemove, "metadata-remove", "a metadata key to remove (repeatable)")
		fs.BoolVar(&metaReplace, "metadata-replace", false, "replace the whole metadata object")
	case "delete":
		fs.BoolVar(&unlink, "unlink", false, "turn links to the concept into plain text")
	default:
		return nil, usagef("unknown concept command %q\n\nUsage: noema %s", sub, conceptUsage)
	}
	pos, err := m.parseFlags(fs, "concept "+sub, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != nargs {
		return nil, usagef("concept %s takes %d argument(s), got %d", sub, nargs, len(pos))
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
	svc := a.Concepts
	switch sub {
	case "find":
		return svc.Find(ctx, concepts.FindInput{Query: pos[0], Limit: limit, MinScore: minScore, Processor: processor})
	case "similar":
		useDecay := !noDecay
		return a.Semantic.FindSimilar(ctx, semantic.SimilarInput{Concept: pos[0], MaxResults: limit, Decay: &useDecay})
	case "list":
		return svc.List(ctx, concepts.ListInput{Text: text, Match: match, Offset: offset, Limit: limit})
	case "create":
		return svc.Create(ctx, concepts.CreateInput{Label: pos[0], Aliases: aliases, Description: description, Metadata: metadata})
	case "show":
		return svc.Get(ctx, pos[0])
	case "update":
		in := concepts.UpdateInput{Concept: pos[0], Label: label, AddAliases: addAliases, Metadata: metadata,
			MetadataRemove: metaRemove, MetadataReplace: metaReplace}
		if len(aliases) > 0 {
			in.Aliases = aliases
		}
		if descriptionSet {
			in.Description = &description
		}
		return svc.Update(ctx, in)
	case "delete":
		return svc.Delete(ctx, pos[0], unlink)
	}
	return nil, nil
}

func textConceptResult(w io.Writer, v any) {
	switch r := v.(type) {
	case *concepts.FindResult:
		for _, c := range r.Candidates {
			via := ""
			if c.IsAlias {
				via = fmt.Sprintf("  (via %q)", c.Matched)
			}
			fmt.Fprintf(w, "%6.2f  %s%s  [%s, %d mentions]\n", c.Score, c.Label, via, c.ID, c.Mentions)
		}
	case *semantic.SimilarResult:
		fmt.Fprintf(w, "embedder: %s — %s\n", r.Embedder, r.Meaning)
		for _, warn := range r.Warnings {
			fmt.Fprintf(w, "warning: %s\n", warn)
		}
		for _, c := range r.Results {
			fmt.Fprintf(w, "%.3f  %s  [%s]  similarity %.3f × decay %.3f  (%s)\n", c.Score, c.Label, c.ID, c.Similarity, c.Decay, c.Band)
		}
	case *concepts.ListResult:
		for _, c := range r.Concepts {
			aka := ""
			if len(c.Aliases) > 0 {
				aka = "  aka " + strings.Join(c.Aliases, ", ")
			}
			fmt.Fprintf(w, "%s%s  [%s, %d mentions]\n", c.Label, aka, c.ID, c.Mentions)
		}
		if r.HasMore {
			fmt.Fprintf(w, "… %d of %d; next: --offset %d\n", len(r.Concepts), r.Total, r.Offset+len(r.Concepts))
		}
	default:
		b, _ := json.MarshalIndent(v, "", "  ")
		fmt.Fprintln(w, string(b))
	}
}
