package fuzzy

import "context"

// Extract is rapidfuzz's process.extract over a plain list: it processes
// choices with processor (nil for none) and returns the best limit of them
// (limit < 0: all), as Choices.Extract does. To extract repeatedly from the
// same choices, build a Choices once instead.
func Extract(query string, choices []string, scorer Scorer, processor Processor, limit int, cutoff float64) ([]Match, error) {
	return NewChoices(choices, processor).WithWorkers(1).Extract(context.Background(), query, scorer, limit, cutoff)
}

// ExtractOne is rapidfuzz's process.extractOne over a plain list: the best
// choice scoring at least cutoff, the first one among equal scores; false if
// there is none.
func ExtractOne(query string, choices []string, scorer Scorer, processor Processor, cutoff float64) (Match, bool, error) {
	return NewChoices(choices, processor).WithWorkers(1).ExtractOne(context.Background(), query, scorer, cutoff)
}
