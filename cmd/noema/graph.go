package main

import (
	"context"
	"flag"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
)

const graphUsage = `graph COMMAND [ARGS]

  export     [--format json|graphml]          (written to stdout as is)
  node       ID                               (ID: concept id c_… or memory:// URI)
  neighbors  ID [--direction out|in|both] [--type T] [--offset N] [--limit N]
  subgraph   ID… [--depth N] [--type T]`

func runGraph(ctx context.Context, m *Main, args []string) (any, error) {
	sub, args, ok, err := m.subcommand("graph", graphUsage, args)
	if !ok {
		return nil, err
	}
	fs := flag.NewFlagSet("graph "+sub, flag.ContinueOnError)
	var format, direction, typ string
	var offset, limit, depth int
	minArgs, maxArgs := 1, 1
	switch sub {
	case "export":
		minArgs, maxArgs = 0, 0
		fs.StringVar(&format, "format", "json", "json or graphml")
	case "node":
	case "neighbors":
		fs.StringVar(&direction, "direction", "both", "out, in or both")
		fs.StringVar(&typ, "type", "", "only edges of this type")
		fs.IntVar(&offset, "offset", 0, "paging offset")
		fs.IntVar(&limit, "limit", graph.DefaultNeighborLimit, "page size (max 500)")
	case "subgraph":
		maxArgs = graph.MaxSubgraphNodes
		fs.IntVar(&depth, "depth", graph.DefaultDepth, "hops (max 5)")
		fs.StringVar(&typ, "type", "", "only follow edges of this type")
	default:
		return nil, usagef("unknown graph command %q\n\nUsage: noema %s", sub, graphUsage)
	}
	pos, err := m.parseFlags(fs, "graph "+sub, args)
	if err != nil {
		return nil, err
	}
	if len(pos) < minArgs || len(pos) > maxArgs {
		return nil, usagef("graph %s: wrong number of arguments", sub)
	}
	a, err := m.open(ctx)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	switch sub {
	case "export":
		g, err := graph.Export(ctx, a.DB)
		if err != nil {
			return nil, err
		}
		switch format {
		case "json":
			return nil, graph.WriteJSON(m.Stdout, g)
		case "graphml":
			return nil, graph.WriteGraphML(m.Stdout, g)
		}
		return nil, noema.Errorf(noema.EINVALID, "--format must be json or graphml")
	case "node":
		return graph.GetNode(ctx, a.DB, pos[0])
	case "neighbors":
		return graph.Neighbors(ctx, a.DB, pos[0], graph.NeighborOptions{Direction: direction, Type: typ, Offset: offset, Limit: limit})
	case "subgraph":
		return graph.Subgraph(ctx, a.DB, pos, depth, typ)
	}
	return nil, nil
}
