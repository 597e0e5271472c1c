package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/relations"
)

// RelationRef names a relation.
type RelationRef struct {
	ID string `json:"id" jsonschema:"the relation id"`
}

func textRelation(r *relations.Relation) string {
	s := fmt.Sprintf("%s: %s -[%s]-> %s", r.ID, r.From, r.Type, r.To)
	if r.Weight != nil {
		s += fmt.Sprintf(" (weight %g)", *r.Weight)
	}
	return s
}

func registerRelations(r *registry) {
	add(r, "graph", &mcp.Tool{
		Name:  "create_relation",
		Title: "Create a relation",
		Description: "Add a typed, directed relation between concepts and/or notes (from, type, to, optional weight and metadata). " +
			"It is written into the source's file: a note's front matter, or the concept's page (created if needed). The same (from, type, to) twice is a conflict.",
	}, additive, func(ctx context.Context, _ *mcp.CallToolRequest, in relations.CreateInput) (*relations.Relation, error) {
		return r.app.Relations.Create(ctx, in)
	}, textRelation)

	add(r, "graph", &mcp.Tool{
		Name:        "update_relation",
		Title:       "Update a relation",
		Description: "Change a relation's type, weight or metadata (merged key by key; metadata_conflict on a different value). The id stays.",
	}, idempotent, func(ctx context.Context, _ *mcp.CallToolRequest, in relations.UpdateInput) (*relations.Relation, error) {
		return r.app.Relations.Update(ctx, in)
	}, textRelation)

	add(r, "graph", &mcp.Tool{
		Name:        "delete_relation",
		Title:       "Delete a relation",
		Description: "Remove a relation from its source's file.",
	}, destructive, func(ctx context.Context, _ *mcp.CallToolRequest, in RelationRef) (*relations.Relation, error) {
		return r.app.Relations.Delete(ctx, in.ID)
	}, func(o *relations.Relation) string { return "deleted " + textRelation(o) })
}
