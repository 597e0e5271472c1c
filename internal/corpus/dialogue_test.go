package corpus

import (
	"reflect"
	"strings"
	"testing"
)

func TestDialogues(t *testing.T) {
	for _, split := range []int{SplitTune, SplitHeldOut} {
		o := DialogueOptions{Seed: 3, Split: split, Conversations: 2, Sessions: 6, Turns: 10}
		d := Dialogues(o)
		if !reflect.DeepEqual(d, Dialogues(o)) {
			t.Fatalf("split %d: the same options gave different dialogues", split)
		}
		if len(d.Notes) != 12 {
			t.Fatalf("split %d: %d notes, want 12", split, len(d.Notes))
		}
		byTitle := map[string]string{}
		for _, n := range d.Notes {
			if _, dup := byTitle[n.Title]; dup {
				t.Fatalf("duplicate title %q", n.Title)
			}
			byTitle[n.Title] = n.Content
			if !strings.Contains(n.Content, "date: "+n.Date.Format("2006-01-02")) || !strings.Contains(n.Title, n.Date.Format("2 January 2006")) {
				t.Errorf("note %q does not carry its date", n.Title)
			}
		}
		kinds := map[string]int{}
		for _, q := range d.Questions {
			kinds[q.Kind]++
			if len(q.Evidence) == 0 {
				t.Fatalf("question %q has no evidence", q.Text)
			}
			for _, e := range q.Evidence {
				if _, ok := byTitle[e]; !ok {
					t.Fatalf("question %q: evidence %q is no note", q.Text, e)
				}
			}
		}
		if kinds["when"] == 0 || kinds["what"] == 0 || kinds["when"] != kinds["what"] {
			t.Errorf("split %d: question kinds %v", split, kinds)
		}
	}
	// Each split's events are told in the evidence of their "when"
	// question, and the splits share no event.
	for split := range dialogueEvents {
		for _, ev := range dialogueEvents[split] {
			for _, other := range dialogueEvents[1-split] {
				if ev.say == other.say {
					t.Errorf("event %q is in both splits", ev.say)
				}
			}
		}
	}
	d := Dialogues(DialogueOptions{Seed: 1, Conversations: 1, Sessions: 4})
	content := map[string]string{}
	for _, n := range d.Notes {
		content[n.Title] = n.Content
	}
	for _, q := range d.Questions {
		if q.Kind != "when" {
			continue
		}
		found := false
		for _, ev := range dialogueEvents[SplitTune] {
			if strings.Contains(content[q.Evidence[0]], ": "+ev.say) {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: its evidence tells no event", q.Text)
		}
	}
}

// TestDialogueStyles checks StyleLong (sessions of very different
// lengths, the date in the note's first line) and Exchanges (one note per
// two turns, the evidence the exchanges that tell the event).
func TestDialogueStyles(t *testing.T) {
	long := Dialogues(DialogueOptions{Seed: 3, Style: StyleLong, Conversations: 2, Sessions: 12})
	shortest, longest := 1<<30, 0
	for _, n := range long.Notes {
		lines := strings.Count(n.Content, "\n")
		shortest, longest = min(shortest, lines), max(longest, lines)
		if !strings.Contains(n.Content, "Session date: "+n.Date.Format("January 2, 2006")) {
			t.Errorf("%q: no session date line", n.Title)
		}
	}
	if longest < 4*shortest {
		t.Errorf("StyleLong sessions run %d to %d lines: want a spread of 4× or more", shortest, longest)
	}
	ex := Dialogues(DialogueOptions{Seed: 3, Style: StyleLong, Exchanges: true, Conversations: 2, Sessions: 12})
	content := map[string]string{}
	for _, n := range ex.Notes {
		if _, dup := content[n.Title]; dup {
			t.Fatalf("duplicate title %q", n.Title)
		}
		content[n.Title] = n.Content
		if turns := strings.Count(n.Content, "\n") - 5; turns < 1 || turns > 2 {
			t.Errorf("%q: %d turns, want 1 or 2", n.Title, turns)
		}
	}
	if len(ex.Questions) == 0 {
		t.Fatal("no questions")
	}
	for _, q := range ex.Questions {
		if q.Kind == "date" {
			t.Errorf("%q: exchanges take no date question", q.Text)
		}
		if len(q.Evidence) == 0 || len(q.Evidence) > 2 {
			t.Errorf("%q: evidence %v", q.Text, q.Evidence)
		}
		for _, e := range q.Evidence {
			if _, ok := content[e]; !ok {
				t.Fatalf("%q: evidence %q is no note", q.Text, e)
			}
		}
	}
	// The default style is unchanged by the others' existence.
	if d := Dialogues(DialogueOptions{Seed: 3, Conversations: 1, Sessions: 2}); !strings.Contains(d.Notes[0].Title, "session 1 (") {
		t.Errorf("default title %q", d.Notes[0].Title)
	}
}
