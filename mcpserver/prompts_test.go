package mcpserver_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/mcpserver"
)

// TestPrompts lists the prompts and gets each with its arguments over the
// SDK's client: the message names the tools to call with the arguments
// filled in; a missing required argument, an unknown one or an unknown
// prompt is an invalid-params error.
func TestPrompts(t *testing.T) {
	ctx := context.Background()
	srv, _ := newServer(t, mcpserver.Options{})
	cs := session(t, srv, nil, nil)

	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Prompt{}
	for _, p := range list.Prompts {
		byName[p.Name] = p
		if p.Title == "" || len(p.Description) < 80 {
			t.Errorf("%s: title %q, description %q: want both, written for a model", p.Name, p.Title, p.Description)
		}
		for _, a := range p.Arguments {
			if a.Description == "" {
				t.Errorf("%s: argument %s has no description", p.Name, a.Name)
			}
		}
	}
	if got := slices.Sorted(maps.Keys(byName)); !slices.Equal(got, []string{"recall", "remember"}) {
		t.Fatalf("prompts %v", got)
	}
	if a := byName["recall"].Arguments; len(a) != 3 || a[0].Name != "topic" || !a[0].Required || a[1].Required || a[2].Name != "vault" || a[2].Required {
		t.Fatalf("recall's arguments %+v", a)
	}

	scenarios := []struct {
		Name    string
		Prompt  string
		Args    map[string]string
		Says    []string
		Without []string
	}{
		{"RecallTopic", "recall", map[string]string{"topic": "garbage collection"},
			[]string{`find_concepts with query "garbage collection"`, "build_context", `search_notes with query "garbage collection"`, "cite"},
			[]string{"this question", "Use the vault"}},
		{"RecallQuestion", "recall", map[string]string{"topic": "GC", "question": "Which collector does Go use?"},
			[]string{`answer this question from what you found: "Which collector does Go use?"`}, nil},
		{"Remember", "remember", nil,
			[]string{"find_concepts", "search_notes", "edit_note", "write_note", "near_duplicates", "expected_checksum"},
			[]string{"Keep to it", "with folder"}},
		{"RememberFocus", "remember", map[string]string{"focus": "the release plan", "folder": "projects/noema"},
			[]string{`Remember this: "the release plan"`, `write_note with folder "projects/noema"`}, nil},
		{"RecallVault", "recall", map[string]string{"topic": "GC", "vault": "work"},
			[]string{`pass vault "work" in every tool call`}, nil},
		{"RememberVault", "remember", map[string]string{"vault": "home"},
			[]string{`pass vault "home" in every tool call`}, []string{"Keep to it"}},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: sc.Prompt, Arguments: sc.Args})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
				t.Fatalf("messages %+v", res.Messages)
			}
			text := res.Messages[0].Content.(*mcp.TextContent).Text
			for _, s := range sc.Says {
				if !strings.Contains(text, s) {
					t.Errorf("the message lacks %q:\n%s", s, text)
				}
			}
			for _, s := range sc.Without {
				if strings.Contains(text, s) {
					t.Errorf("the message has %q:\n%s", s, text)
				}
			}
		})
	}

	refused := []struct {
		Name string
		Args map[string]string
		Says string
	}{
		{"recall", nil, `prompt "recall" needs the argument "topic"`},
		{"recall", map[string]string{"topic": "  "}, `needs the argument "topic"`},
		{"recall", map[string]string{"topic": "x", "color": "red"}, `takes no argument "color"`},
		{"recall", map[string]string{"topic": strings.Repeat("x", 3000)}, "longer than 2000 bytes"},
		{"forget", nil, `unknown prompt "forget"`},
	}
	for _, r := range refused {
		_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: r.Name, Arguments: r.Args})
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams || !strings.Contains(wire.Message, r.Says) {
			t.Errorf("%s %v: error %v, want invalid params saying %q", r.Name, r.Args, err, r.Says)
		}
	}
}

// TestPromptsFollowToolsets: a prompt is offered only with the toolsets
// whose tools it tells the model to call.
func TestPromptsFollowToolsets(t *testing.T) {
	srv, _ := newServer(t, mcpserver.Options{Toolsets: []string{"concepts", "search"}})
	cs := session(t, srv, nil, nil)
	list, err := cs.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Prompts) != 1 || list.Prompts[0].Name != "recall" {
		t.Fatalf("prompts %+v, want recall alone (remember writes notes)", list.Prompts)
	}
}
