package corpus

import (
	"fmt"
	"strings"
	"time"
)

// Dialogue splits: two disjoint vocabularies (speaker names, planted
// events, topic nouns), so that ranking weights chosen on one can be
// checked on the other.
const (
	// SplitTune is the vocabulary to tune ranking on.
	SplitTune = 0
	// SplitHeldOut is the vocabulary kept to report on.
	SplitHeldOut = 1
)

// DialogueOptions configure [Dialogues]. Zero counts take the defaults.
type DialogueOptions struct {
	// Seed selects the dialogues; the same options give the same output.
	Seed uint64
	// Split is SplitTune or SplitHeldOut.
	Split int
	// Conversations is the number of speaker pairs (default 4, at most 6).
	Conversations int
	// Sessions is the number of sessions per conversation (default 12).
	Sessions int
	// Turns is the number of filler turns per session (default 24); the
	// planted facts come on top. In StyleLong it is the mean.
	Turns int
	// Style is StyleChat (the default) or StyleLong.
	Style int
	// Exchanges writes one note per exchange (two consecutive turns)
	// instead of one per session; the evidence is then the exchanges that
	// tell an event, and no question names a date.
	Exchanges bool
}

// Dialogue styles: two ways of writing chats, so that ranking chosen on one
// can be checked on the other.
const (
	// StyleChat: sessions of about the same length, one short sentence a
	// turn, the session date in the title.
	StyleChat = 0
	// StyleLong: sessions from a handful of turns to four times the mean,
	// turns of one to three sentences in which the speakers name each
	// other, the title numbering the session and the date written in the
	// note's first line; questions name dates in other formats.
	StyleLong = 1
)

// DialogueNote is one chat session, written as one note.
type DialogueNote struct {
	// File is the note's file name (.md); Title its title.
	File, Title string
	// Content is the whole file: front matter (title, date, speakers) and
	// one line per turn, "Name: text".
	Content string
	Date    time.Time
}

// DialogueQuestion is a question about the dialogues and the sessions
// that answer it.
type DialogueQuestion struct {
	Text string
	// Kind is "when" (the session where the event happened), "what" (where
	// it happened or was told again in other words) or "date" (what was
	// said in a session named by its date).
	Kind string
	// Evidence are the titles of the notes that answer the question.
	Evidence []string
}

// Dialogue is a generated set of chat sessions and questions about them.
type Dialogue struct {
	Notes     []DialogueNote
	Questions []DialogueQuestion
}

// streamDialogue is the random stream of Dialogues, apart from the vault
// streams.
const streamDialogue uint64 = 100

// dialogueEvent is a fact a speaker tells: say (first person) in one
// session, later (other words) in a later one; the questions ask about it
// in other words again. {S} is the speaker's name.
type dialogueEvent struct{ say, later, when, what string }

// Dialogues generates multi-session conversations between pairs of
// speakers with planted facts, and questions whose evidence is the session
// notes that state them. Each conversation has its own two speakers; a
// session note is dated (title and front matter) and holds short turns of
// small talk, mentions of the same topics in passing (distractors), and
// one or two events a speaker tells, told again in other words in a later
// session. The same event may happen in several conversations: only the
// speaker's name tells them apart.
func Dialogues(o DialogueOptions) Dialogue {
	if o.Conversations <= 0 || o.Conversations > 6 {
		o.Conversations = 4
	}
	if o.Sessions <= 0 {
		o.Sessions = 12
	}
	if o.Turns <= 0 {
		o.Turns = 24
	}
	split := o.Split & 1
	events, names, nouns := dialogueEvents[split], dialogueNames[split], dialogueNouns[split]
	long := o.Style == StyleLong
	var d Dialogue
	for c := range o.Conversations {
		r := newRNG(o.Seed, streamDialogue+uint64(o.Style), uint64(c))
		a, b := names[2*c], names[2*c+1]
		start := time.Date(2023, time.Month(1+r.Intn(12)), 1+r.Intn(28), 0, 0, 0, 0, time.UTC)
		// Each session tells one or two events, each event at most once
		// per conversation.
		order := r.perm(len(events))
		type told struct {
			ev      int
			speaker string
			session int
		}
		var tells []told
		sessions := make([][]string, o.Sessions)
		titles := make([]string, o.Sessions)
		dates := make([]time.Time, o.Sessions)
		date := start
		for s := range o.Sessions {
			dates[s] = date
			titles[s] = fmt.Sprintf("%s and %s, session %d (%s)", a, b, s+1, date.Format("2 January 2006"))
			if long {
				titles[s] = fmt.Sprintf("Chat %d of %s and %s", s+1, a, b)
			}
			date = date.AddDate(0, 0, 5+r.Intn(25))
		}
		next := 0
		for s := range o.Sessions {
			var turns []string
			plant := 1 + r.Intn(2)
			for range plant {
				if next == len(order) {
					break
				}
				sp := a
				if r.chance(0.5) {
					sp = b
				}
				tells = append(tells, told{ev: order[next], speaker: sp, session: s})
				next++
			}
			n := o.Turns
			if long {
				n = max(4, int(float64(o.Turns)*(0.2+3.8*r.float()*r.float())))
			}
			for i := 0; i < n; i++ {
				sp, other := a, b
				if i%2 == 1 {
					sp, other = b, a
				}
				t := r.fillerTurn(nouns)
				if long {
					for k := r.Intn(3); k > 0; k-- {
						t += " " + r.fillerTurn(nouns)
					}
					if r.chance(0.2) {
						t = strings.ReplaceAll(r.pick(dialogueAddress), "{O}", other) + " " + t
					}
				}
				turns = append(turns, sp+": "+t)
			}
			sessions[s] = turns
		}
		// Place each event's telling, a reply, and its retelling in a later
		// session.
		for _, t := range tells {
			ev := events[t.ev]
			other := a
			if t.speaker == a {
				other = b
			}
			at := r.Intn(len(sessions[t.session]) + 1)
			lines := []string{t.speaker + ": " + ev.say, other + ": " + r.pick(dialogueReplies)}
			sessions[t.session] = insertAt(sessions[t.session], at, lines...)
			whatEvidence := []string{titles[t.session]}
			if t.session+1 < o.Sessions {
				ls := t.session + 1 + r.Intn(o.Sessions-t.session-1)
				at := r.Intn(len(sessions[ls]) + 1)
				sessions[ls] = insertAt(sessions[ls], at, t.speaker+": "+ev.later)
				whatEvidence = append(whatEvidence, titles[ls])
			}
			name := func(q string) string { return strings.ReplaceAll(q, "{S}", t.speaker) }
			d.Questions = append(d.Questions,
				DialogueQuestion{Text: name(ev.when), Kind: "when", Evidence: []string{titles[t.session]}},
				DialogueQuestion{Text: name(ev.what), Kind: "what", Evidence: whatEvidence})
			if o.Exchanges {
				// Evidence: the exchanges holding the telling and retelling.
				lines := []string{t.speaker + ": " + ev.say, t.speaker + ": " + ev.later}
				q := d.Questions[len(d.Questions)-2:]
				q[0].Evidence, q[1].Evidence = lines[:1], lines
			}
		}
		if o.Exchanges {
			d.addExchanges(o, a, b, titles, dates, sessions)
			continue
		}
		for s := range o.Sessions {
			var body strings.Builder
			fmt.Fprintf(&body, "---\ntitle: %s\ndate: %s\nspeakers: [%s, %s]\n---\n", titles[s], dates[s].Format("2006-01-02"), a, b)
			if long {
				fmt.Fprintf(&body, "Session date: %s\n", dates[s].Format("January 2, 2006"))
			}
			for _, l := range sessions[s] {
				body.WriteString(l)
				body.WriteString("\n")
			}
			d.Notes = append(d.Notes, DialogueNote{
				File:    fmt.Sprintf("%s-%s-%02d.md", strings.ToLower(a), strings.ToLower(b), s+1),
				Title:   titles[s],
				Content: body.String(),
				Date:    dates[s],
			})
			if r.chance(0.25) {
				text := fmt.Sprintf("What did %s and %s talk about on %s?", a, b, dates[s].Format("2 January 2006"))
				if long {
					text = fmt.Sprintf(r.pick(dialogueDateQuestions), a, b, dates[s].Format(r.pick(dialogueDateFormats)))
				}
				d.Questions = append(d.Questions, DialogueQuestion{
					Text:     text,
					Kind:     "date",
					Evidence: []string{titles[s]},
				})
			}
		}
	}
	return d
}

// addExchanges writes one conversation's sessions as one note per
// exchange (two consecutive turns) and turns the questions' evidence, the
// lines that tell an event, into the titles of the exchanges holding them.
func (d *Dialogue) addExchanges(o DialogueOptions, a, b string, titles []string, dates []time.Time, sessions [][]string) {
	where := map[string][]string{} // line -> exchange titles
	for s := range sessions {
		for i := 0; i < len(sessions[s]); i += 2 {
			k := i/2 + 1
			title := fmt.Sprintf("%s and %s, %s, exchange %d", a, b, dates[s].Format("2 January 2006"), k)
			lines := sessions[s][i:min(i+2, len(sessions[s]))]
			var body strings.Builder
			fmt.Fprintf(&body, "---\ntitle: %s\ndate: %s\nspeakers: [%s, %s]\n---\n", title, dates[s].Format("2006-01-02"), a, b)
			for _, l := range lines {
				body.WriteString(l)
				body.WriteString("\n")
				where[l] = append(where[l], title)
			}
			d.Notes = append(d.Notes, DialogueNote{
				File:    fmt.Sprintf("%s-%s-%02d-%03d.md", strings.ToLower(a), strings.ToLower(b), s+1, k),
				Title:   title,
				Content: body.String(),
				Date:    dates[s],
			})
		}
	}
	for i := range d.Questions {
		q := &d.Questions[i]
		if len(q.Evidence) == 0 || strings.HasPrefix(q.Evidence[0], a+" and "+b) || !strings.HasPrefix(q.Evidence[0], a+": ") && !strings.HasPrefix(q.Evidence[0], b+": ") {
			continue
		}
		var ev []string
		for _, l := range q.Evidence {
			ev = append(ev, where[l]...)
		}
		q.Evidence = ev
	}
}

// insertAt returns list with items inserted before index i.
func insertAt(list []string, i int, items ...string) []string {
	out := make([]string, 0, len(list)+len(items))
	out = append(out, list[:i]...)
	out = append(out, items...)
	return append(out, list[i:]...)
}

// perm returns a random permutation of 0..n-1.
func (r *rng) perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		j := r.Intn(i + 1)
		p[i] = p[j]
		p[j] = i
	}
	return p
}

// fillerTurn returns a turn of small talk, sometimes mentioning a topic
// noun in passing.
func (r *rng) fillerTurn(nouns []string) string {
	if r.chance(0.35) {
		return strings.ReplaceAll(r.pick(dialogueTopical), "{N}", r.pick(nouns))
	}
	s := r.pick(dialogueSmallTalk)
	if r.chance(0.3) {
		s += " " + r.pick(dialogueSmallTalk)
	}
	return s
}

// dialogueAddress opens a turn of StyleLong by naming the other speaker.
var dialogueAddress = []string{"Thanks, {O}!", "Oh {O}, you will not believe this.", "{O}, listen.", "Good to hear from you, {O}.", "Ha, {O}, classic."}

// dialogueDateQuestions and dialogueDateFormats phrase StyleLong's
// questions about a session by its date: the two speakers, then the date.
var (
	dialogueDateQuestions = []string{
		"What did %s and %s discuss on %s?",
		"What came up when %s chatted with %s on %s?",
		"Summarise the conversation between %s and %s from %s.",
	}
	dialogueDateFormats = []string{"2 January 2006", "January 2, 2006", "2006-01-02", "2 Jan 2006"}
)

var dialogueReplies = []string{
	"Wow, that is amazing, tell me everything!",
	"No way, I am so happy for you.",
	"That sounds like a lot, how are you feeling about it?",
	"Oh nice, you have to send me pictures.",
	"I did not see that coming, good for you!",
	"Ha, that is so you.",
}

var dialogueSmallTalk = []string{
	"Hey, how have you been?",
	"Pretty good, busy week though.",
	"Same here, work has been crazy.",
	"I know what you mean.",
	"Honestly I just need a long nap.",
	"Did you end up going out on Friday?",
	"Not really, I stayed in and watched a movie.",
	"That sounds nice and relaxing.",
	"The weather has been so strange lately.",
	"It rained all morning and then got really hot.",
	"How is your family doing?",
	"Everyone is fine, thanks for asking.",
	"I have been trying to sleep earlier.",
	"Coffee is the only thing keeping me going.",
	"We should catch up in person soon.",
	"Totally, let me know when you are free.",
	"I have a few errands to run later.",
	"That reminds me, I owe you a message from last week.",
	"Haha, no worries at all.",
	"Anyway, what else is new with you?",
	"Not much, just the usual routine.",
	"I am thinking about taking a few days off.",
	"You deserve it, honestly.",
	"Traffic this morning was unbelievable.",
	"I keep forgetting to water my plants.",
	"That is hilarious.",
	"I feel like time is flying this year.",
	"Talk soon, I have to run.",
}

var dialogueTopical = []string{
	"My coworker will not stop talking about {N}.",
	"I saw an advert for {N} on the bus today.",
	"Did you see that news story about {N}?",
	"My neighbour asked me about {N} again, no idea why.",
	"There was a podcast about {N} on the radio this morning.",
	"I walked past a shop that was all about {N}.",
	"Someone at the gym was going on about {N}.",
	"I had the weirdest dream about {N} last night.",
}

// dialogueNames are the speakers of each split, two per conversation.
var dialogueNames = [2][]string{
	{"Caroline", "Marcus", "Priyanka", "Oliver", "Hannah", "Diego", "Sofia", "Walter", "Amara", "Lukas", "Greta", "Rafael"},
	{"Beatrice", "Kenji", "Lorena", "Samuel", "Ingrid", "Farid", "Yasmin", "Theo", "Nadia", "Callum", "Elif", "Joaquin"},
}

// dialogueNouns are the topic nouns of each split's distractor turns: the
// words its questions ask with, mentioned where nothing happened.
var dialogueNouns = [2][]string{
	{"dogs", "puppies", "a beagle", "marathons", "running", "vegetable gardens", "tomatoes", "pottery",
		"ceramics", "babies", "promotions", "the logistics company", "fishing", "trout", "the lake", "guitars",
		"the food bank", "volunteering", "apartments", "balconies", "a lighthouse", "novels", "jazz",
		"a concert", "driving tests", "cats", "kittens", "chocolate cake", "birthdays", "Spanish",
		"volleyball", "ankles", "murals", "the library", "camping", "the desert", "a choir", "the cathedral"},
	{"parrots", "birds", "swimming", "the bay", "apple trees", "farms", "woodworking", "bookshelves",
		"weddings", "vineyards", "bakeries", "sourdough", "the farmers market", "skiing", "mountains",
		"violins", "the orchestra", "playgrounds", "houses", "roofs", "biographies", "mountaineers", "opera",
		"the theatre", "scuba diving", "the ocean", "tortoises", "strawberries", "anniversaries", "dinner",
		"astronomy", "black holes", "bikes", "wrists", "scarves", "knitting", "volcanoes", "rowing", "the canal"},
}

// dialogueEvents are the planted facts of each split.
var dialogueEvents = [2][]dialogueEvent{
	{
		{"I adopted a puppy from the shelter on Saturday, a tiny beagle called Biscuit.", "Biscuit chewed through my running shoes again, that little rascal.",
			"When did {S} adopt a dog?", "What is the name of the beagle {S} took home?"},
		{"I finally ran my first half marathon this morning, finished in two hours flat.", "My knees still remember that twenty-one kilometre race.",
			"When did {S} run the half marathon?", "How long did the first long-distance race of {S} take?"},
		{"We started a vegetable garden in the backyard, tomatoes, zucchini and basil.", "The zucchini plants have gone completely wild this summer.",
			"When did {S} start growing vegetables?", "Which plants did {S} put in the backyard garden?"},
		{"I signed up for a pottery class at the community centre, we threw our first bowls tonight.", "My lopsided ceramic mug came out of the kiln, it is hideous and I love it.",
			"When did {S} take a pottery class?", "What did {S} make in ceramics?"},
		{"My sister Priya had a baby girl last night, her name is Mira.", "Being an aunt to little Mira is the best thing ever.",
			"When was the niece of {S} born?", "What is the name of the daughter of the sister of {S}?"},
		{"I got promoted to team lead at the logistics company today.", "Managing five people at the warehouse firm is harder than I thought.",
			"When did {S} get the promotion?", "What job does {S} have now at work?"},
		{"We drove up to the lake cabin for a weekend of fishing, I caught a huge trout.", "That trout from the cabin trip is still the biggest fish I have ever landed.",
			"When did {S} go fishing at the lake?", "What fish did {S} catch?"},
		{"I bought an old acoustic guitar at a flea market and started taking lessons.", "My fingertips finally stopped hurting from practising chords.",
			"When did {S} start learning guitar?", "Where did {S} find the instrument?"},
		{"I volunteered at the food bank downtown, we packed four hundred meal boxes.", "Sorting donations on Sundays has become my favourite routine.",
			"When did {S} volunteer at the food bank?", "How many boxes did the volunteer group of {S} pack?"},
		{"I moved into a new apartment near the river, it has a tiny balcony.", "Watching the boats from my balcony every evening never gets old.",
			"When did {S} move apartments?", "What does the new flat of {S} have?"},
		{"I read a novel about a lighthouse keeper and could not put it down.", "That lighthouse book made me want to visit the coast.",
			"When did {S} read the lighthouse novel?", "What was the book {S} could not stop reading about?"},
		{"I went to a jazz concert in the park with my dad, the saxophone player was incredible.", "Dad keeps humming that saxophone solo from the concert.",
			"When did {S} see live jazz?", "Who went to the concert with {S}?"},
		{"I passed my driving test on the second try!", "Having my licence means I can finally drive to the coast myself.",
			"When did {S} pass the driving exam?", "How many attempts did {S} need for the driving test?"},
		{"We adopted two kittens, a grey one named Smoke and a ginger one named Pumpkin.", "Smoke and Pumpkin knocked every plant off the windowsill.",
			"When did {S} get cats?", "What are the names of the kittens of {S}?"},
		{"I baked a three-layer chocolate cake for my grandmother's ninetieth birthday.", "Grandma still talks about that chocolate cake.",
			"When did {S} bake a birthday cake?", "How old did the grandmother of {S} turn?"},
		{"I started a night course in Spanish at the university.", "My Spanish teacher says my accent is getting better.",
			"When did {S} begin studying Spanish?", "What language is {S} learning?"},
		{"I sprained my ankle playing volleyball at the beach.", "The physiotherapist says my ankle needs two more weeks.",
			"When did {S} hurt an ankle?", "What sport injured {S}?"},
		{"I painted a mural of sunflowers on the wall of the children's library.", "Kids keep asking who painted the sunflower wall.",
			"When did {S} paint the mural?", "What did {S} paint at the library?"},
		{"I camped under the stars in the desert with my college friends.", "The desert sky that night was full of shooting stars.",
			"When did {S} go camping in the desert?", "Who did {S} camp with?"},
		{"I joined a choir that sings at the old cathedral every Thursday.", "Our choir is rehearsing a Christmas carol program.",
			"When did {S} join the choir?", "Where does the choir of {S} perform?"},
	},
	{
		{"I rescued a parrot from a pet shop that was closing, he already says hello.", "Captain the parrot learned to whistle the kettle tune.",
			"When did {S} get a bird?", "What can the parrot of {S} say?"},
		{"I swam across the bay in the charity swim, three kilometres of cold water.", "My shoulders still ache from that open water crossing.",
			"When did {S} do the charity swim?", "How far did {S} swim?"},
		{"I planted an apple orchard on my uncle's farm, forty little trees.", "The apple saplings survived the frost.",
			"When did {S} plant fruit trees?", "How many trees did {S} plant on the farm?"},
		{"I took a woodworking workshop and built a walnut bookshelf.", "The walnut shelf now holds all my cookbooks.",
			"When did {S} build furniture?", "What did {S} make in the woodworking workshop?"},
		{"My brother Tomas got married in a vineyard on Sunday.", "The wedding photos from the vineyard finally arrived.",
			"When was the wedding of the brother of {S}?", "Where did the brother of {S} get married?"},
		{"I launched my own bakery business selling sourdough at the farmers market.", "My sourdough stall sold out before noon again.",
			"When did {S} open the bakery?", "What does {S} sell at the market?"},
		{"We went skiing in the mountains and I finally tried a black run.", "I still have bruises from that black slope.",
			"When did {S} go on the ski trip?", "Which difficult run did {S} attempt?"},
		{"I bought a secondhand violin and found a teacher who plays in the orchestra.", "My violin scales sound less like a cat fight now.",
			"When did {S} start playing violin?", "Who teaches {S} the violin?"},
		{"I helped rebuild a playground with a neighbourhood crew.", "The new slide at the playground is a hit with the toddlers.",
			"When did {S} help build the playground?", "What did the neighbourhood crew construct with {S}?"},
		{"I bought a small house with a red door on Maple Street.", "Fixing the leaky roof on the new house took all weekend.",
			"When did {S} buy a house?", "What colour is the door of the house of {S}?"},
		{"I finished a biography of a famous mountaineer in one sitting.", "That climber's memoir inspired me to start hiking.",
			"When did {S} read the mountaineer biography?", "Whose life story did {S} read?"},
		{"I saw an opera at the old theatre with my mother, the soprano gave me chills.", "Mum keeps singing the aria from that opera.",
			"When did {S} go to the opera?", "Who did {S} see the opera with?"},
		{"I earned my scuba diving certificate after the last ocean dive.", "Diving with turtles is now on my bucket list since I got certified.",
			"When did {S} get the diving certification?", "What certificate did {S} earn?"},
		{"We took in a rescue tortoise named Pebble.", "Pebble the tortoise ate all the strawberries in the garden.",
			"When did {S} adopt the tortoise?", "What is the tortoise of {S} called?"},
		{"I cooked a five-course dinner for my parents' anniversary.", "My parents still rave about the anniversary dinner.",
			"When did {S} cook the anniversary meal?", "How many courses did {S} cook?"},
		{"I enrolled in an online course on astronomy.", "The astronomy lectures about black holes blew my mind.",
			"When did {S} enrol in the astronomy course?", "What subject is {S} studying online?"},
		{"I broke my wrist falling off my bike on a gravel trail.", "The cast on my wrist comes off next Friday.",
			"When did {S} break a wrist?", "How did {S} get injured?"},
		{"I knitted a blue scarf for every kid at the shelter.", "The shelter sent a thank-you card for the scarves.",
			"When did {S} knit the scarves?", "What did {S} knit for the children?"},
		{"I hiked to the summit of the volcano at sunrise with my cousins.", "The view from the volcano crater was unreal.",
			"When did {S} climb the volcano?", "Who hiked with {S}?"},
		{"I joined a rowing club that trains on the canal at dawn.", "Our rowing crew won the regatta on the canal.",
			"When did {S} join the rowing club?", "Where does the rowing club of {S} train?"},
	},
}
