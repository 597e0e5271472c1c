package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompts teach a client the habit of a memory: recall before answering,
// remember after a session. Each is a template a user (or the client for
// them) picks; prompts/get returns it as one user message with the
// arguments filled in, which the model then follows with the tools.

// prompt is one prompt, the toolsets whose tools it calls, and the
// message it makes from its arguments.
type prompt struct {
	def   *mcp.Prompt
	needs []string
	text  func(args map[string]string) string
}

// maxPromptArg bounds an argument's length: a topic or a summary, not a
// document.
const maxPromptArg = 2000

// allPrompts returns every prompt.
func allPrompts() []prompt {
	return []prompt{{
		def: &mcp.Prompt{
			Name:  "recall",
			Title: "Recall what memory holds on a topic",
			Description: "Before answering about a topic, look it up in noema: find the concept under any spelling (find_concepts), gather its " +
				"notes and relations (build_context), search the notes (search_notes), then answer only from what was found, citing the notes, " +
				"and say what memory does not hold.",
			Arguments: []*mcp.PromptArgument{
				{Name: "topic", Title: "Topic", Required: true,
					Description: "What to recall, in a few words: a concept, person, project or question's subject (\"garbage collection\", \"Ana's roasting setup\")."},
				{Name: "question", Title: "Question",
					Description: "The user's question about the topic, if there is one; the answer then addresses it (optional)."},
				vaultArgument,
			},
		},
		needs: []string{"concepts", "search"},
		text:  recallText,
	}, {
		def: &mcp.Prompt{
			Name:  "remember",
			Title: "Remember what this session learned",
			Description: "At the end of a session, write what was learned into noema as notes: one note per topic, reusing existing concepts " +
				"(find_concepts) in [[links]], extending existing notes instead of duplicating them, and acting on the near-duplicate feedback " +
				"write_note returns.",
			Arguments: []*mcp.PromptArgument{
				{Name: "focus", Title: "Focus",
					Description: "What to remember, if not everything worth keeping from the conversation: a topic, or a short summary of the facts and decisions (optional)."},
				{Name: "folder", Title: "Folder",
					Description: "The vault folder new notes go in, such as \"projects/noema\" (optional; default: the vault's root)."},
				vaultArgument,
			},
		},
		needs: []string{"notes", "concepts", "search"},
		text:  rememberText,
	}}
}

// vaultArgument names the vault a prompt's tool calls use, for a server
// serving several (list_vaults names them).
var vaultArgument = &mcp.PromptArgument{Name: "vault", Title: "Vault",
	Description: "The vault to use when the server serves several, as list_vaults names it, such as \"work\" (optional; default: the server's first vault)."}

// writeVault tells the model to pass the vault argument, if given, to every
// tool call.
func writeVault(b *strings.Builder, args map[string]string) {
	if v := args["vault"]; v != "" {
		fmt.Fprintf(b, "Use the vault %q: pass vault %q in every tool call below.\n\n", v, v)
	}
}

func recallText(args map[string]string) string {
	topic := args["topic"]
	var b strings.Builder
	fmt.Fprintf(&b, "Before you answer, recall what your long-term memory (the noema tools) holds about %q.\n\n", topic)
	writeVault(&b, args)
	fmt.Fprintf(&b, "1. Call find_concepts with query %q. Take the best match as the concept (a score of 85 or more is the same concept under "+
		"another spelling); note its exact label. If two or three match well, look at each.\n", topic)
	b.WriteString("2. Call build_context with concept set to that label: it returns the notes about the concept, its relations and its " +
		"neighbours. If find_concepts found nothing, skip this step.\n")
	fmt.Fprintf(&b, "3. Call search_notes with query %q (add the key words of the question) to find notes that mention the topic without "+
		"linking it.\n", topic)
	b.WriteString("4. If an excerpt looks decisive but is cut, read the whole note with read_note. When an answer says truncated, pass its " +
		"next_cursor as cursor for the rest.\n\n")
	if q := args["question"]; q != "" {
		fmt.Fprintf(&b, "Then answer this question from what you found: %q\n", q)
	} else {
		b.WriteString("Then answer the user from what you found.\n")
	}
	b.WriteString("Say what memory holds and cite each fact's note (its title or memory:// URI). Say plainly what it does not hold, and " +
		"do not fill the gap from general knowledge without saying that you do. If nothing was found, say that memory holds nothing on " +
		"the topic and offer to remember what the user tells you.")
	return b.String()
}

func rememberText(args map[string]string) string {
	var b strings.Builder
	b.WriteString("This session is ending. Write what was learned in it into your long-term memory (the noema tools), so that a later " +
		"session can recall it.\n\n")
	writeVault(&b, args)
	if f := args["focus"]; f != "" {
		fmt.Fprintf(&b, "Remember this: %q. Keep to it.\n\n", f)
	}
	b.WriteString("1. List the facts, decisions, preferences and open questions worth keeping: what will still matter next week. Leave " +
		"out small talk, passing guesses and what memory already holds.\n")
	b.WriteString("2. Group them by topic: one note per topic, not one per fact and not one for the whole session.\n")
	b.WriteString("3. For each concept a note is about, call find_concepts first and reuse the exact label it returns (a score of 85 or " +
		"more is the same concept) in the note's [[WikiLinks]]. Make a new concept only when nothing matches.\n")
	b.WriteString("4. Before writing a note, call search_notes for its topic. If a note already covers it, read_note it and extend it " +
		"with edit_note (op append, or replace_section; pass its checksum as expected_checksum, and on checksum_mismatch read it " +
		"again) instead of writing a second note.\n")
	folder := ""
	if f := args["folder"]; f != "" {
		folder = fmt.Sprintf(" with folder %q", f)
	}
	fmt.Fprintf(&b, "5. Write each new note with write_note%s: a title that names its topic, a short body of plain sentences that "+
		"stand on their own (dates and names spelled out), [[links]] to its concepts, and a few tags. Never pass overwrite unless "+
		"you mean to replace a note.\n", folder)
	b.WriteString("6. Read what each write returns. When a concept it lists as new has near_duplicates (or a warning names similar " +
		"concepts), that concept probably exists under another spelling: change your link to the existing label with edit_note, or " +
		"add the spelling as an alias (update_concept), unless the two truly differ.\n\n")
	b.WriteString("Finally, tell the user in one or two lines what you remembered and in which notes.")
	return b.String()
}

// registerPrompts adds to s the prompts whose toolsets are enabled.
func registerPrompts(s *mcp.Server, enabled map[string]bool) {
	for _, p := range allPrompts() {
		if !slices.ContainsFunc(p.needs, func(t string) bool { return !enabled[t] }) {
			s.AddPrompt(p.def, promptHandler(p))
		}
	}
}

// promptHandler checks the arguments of a prompts/get — a required one
// missing or empty, one the prompt does not take, or one too long is an
// invalid-params error — and returns the prompt's message.
func promptHandler(p prompt) mcp.PromptHandler {
	return func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		args := map[string]string{}
		known := map[string]bool{}
		for _, a := range p.def.Arguments {
			known[a.Name] = true
		}
		for name, v := range req.Params.Arguments {
			if !known[name] {
				return nil, invalidParams("prompt %q takes no argument %q (it takes %s)", p.def.Name, name, argNames(p.def))
			}
			if len(v) > maxPromptArg {
				return nil, invalidParams("argument %q of prompt %q is longer than %d bytes", name, p.def.Name, maxPromptArg)
			}
			args[name] = strings.TrimSpace(v)
		}
		for _, a := range p.def.Arguments {
			if a.Required && args[a.Name] == "" {
				return nil, invalidParams("prompt %q needs the argument %q: %s", p.def.Name, a.Name, a.Description)
			}
		}
		return &mcp.GetPromptResult{
			Description: p.def.Description,
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: p.text(args)}}},
		}, nil
	}
}

func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid_argument: " + fmt.Sprintf(format, args...)}
}

func argNames(p *mcp.Prompt) string {
	names := make([]string, len(p.Arguments))
	for i, a := range p.Arguments {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}
