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
