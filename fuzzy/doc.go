// Package fuzzy is a Go port of RapidFuzz's string scorers and of its
// process.extract / process.extractOne, giving the same scores and the same
// rankings. The reference is RapidFuzz 3.14 with its compiled backend,
// rapidfuzz-cpp 3.3.3, which is what `pip install rapidfuzz` runs.
//
// # Scorers
//
// Ratio, PartialRatio, TokenSortRatio, TokenSetRatio, TokenRatio,
// PartialTokenSortRatio, PartialTokenSetRatio, PartialTokenRatio, WRatio and
// QRatio are the functions of rapidfuzz.fuzz with the same names. Each takes
// two strings and a score cutoff and returns a float64 in [0, 100]. The Scorer
// type names them for configuration and for extraction; ParseScorer accepts
// the rapidfuzz names ("WRatio", "token_set_ratio") and the Go ones
// ("TokenSetRatio"), ignoring case and underscores.
//
// Strings are compared as sequences of code points, like Python str, not as
// bytes. Invalid UTF-8 bytes read as U+FFFD. Ratio is the normalized Indel
// similarity, 100*(1 - d/(|a|+|b|)) where d = |a|+|b| - 2*LCS(a, b),
// computed with Hyyrö's bit-parallel LCS (one 64-bit word per 64 code
// points). Tokens are separated by whitespace as RapidFuzz's C++ code sees
// it: U+0085 and U+00A0 separate tokens only in strings that hold a code
// point above U+00FF.
//
// The cutoff behaves as score_cutoff: a score below it is returned as 0, and a
// cutoff above 100 gives 0 even for identical strings. Ratio, QRatio,
// TokenSortRatio, TokenSetRatio and TokenRatio compare exactly as the C++ code
// does (Ratio in normalized space, ns >= cutoff/100). The partial scorers and
// WRatio compute the exact score and then compare it with the cutoff; the C++
// code mixes two float comparisons there, so a cutoff equal to a score to the
// last bit can give 0 in RapidFuzz and the score here. Nothing else differs.
//
// The edge cases are RapidFuzz's: Ratio("", "") is 100, QRatio and WRatio
// return 0 when either string is empty, TokenSetRatio and
// PartialTokenSetRatio return 0 when either string has no tokens.
//
// # Processors
//
// A Processor runs on both strings before anything else. The default is nil,
// no processing, as in RapidFuzz 3 (version 2 processed by default).
// DefaultProcess is RapidFuzz's C++ utils.default_process: letters and
// numbers of Unicode 13.0 lowercased with the simple mapping, everything else
// a space, then leading and trailing spaces trimmed (inner runs are kept).
// The plain scorers take no processor; apply DefaultProcess to both strings.
//
// # Extraction
//
// NewChoices processes a list of texts once: processed code points, sorted
// and de-duplicated token forms, interned token ids, an inverted token index
// and a character histogram per text. Choices.Extract then scores one query
// against all of them and returns the best limit matches as
// process.extract(query, choices, scorer=..., processor=..., limit=...,
// score_cutoff=...) would:
//
//   - ordered by score descending, then by index ascending;
//   - every choice scoring at least the cutoff is eligible, so with the
//     default cutoff 0 choices scoring 0 are returned too;
//   - the cutoff is rounded to float32 first, as the C++ extractor stores it,
//     so a cutoff of 72.3 drops a score of exactly 72.3;
//   - limit < 0 means no limit, limit 0 returns nothing.
//
// ExtractOne is process.extractOne: the first of the best. Extract and
// ExtractOne at package level do the same on a plain list, building the
// Choices on the fly.
//
// Extract splits the choices across runtime.GOMAXPROCS goroutines (see
// Choices.WithWorkers) and prunes: each worker keeps a top-k heap and skips a
// choice, or any part of a scorer, whose upper bound cannot beat the k-th
// best so far. Choices sharing a token with the query are scored first (up
// to a budget, the rarest tokens first) so that the bar starts high. Every
// other choice is first bounded as a whole from its shape, 40 bytes kept
// apart from the texts: a 64-bucket histogram of its code points (an LCS
// uses no more of a code point than both strings hold) and the lengths of
// its three forms, put through the scorer's own expressions and branches
// (WRatio's length ratio and factors; a term that one shared token can make
// 100 counts as 100 for a choice the inverted token index says may share
// one). The bound only grows with the histograms' intersection, so for each
// combination of lengths a table keeps the least intersection that can
// reach the bar, and most choices cost a look-up and four popcounts. Upper
// bounds are computed with the same float expressions as the scores, so
// pruning never changes a result: the output is identical to scoring every
// choice, and does not depend on the number of workers.
//
// Costs: a Choices holds about 340 bytes per text of 20 code points (34 MB
// for 100,000 labels) and builds in a few microseconds per text. Scoring is
// linear in the number of texts, about 20 ns a text for WRatio's top 20 at
// a million labels; partial_ratio, and so WRatio for strings of very
// different lengths, also grows with the product of the two lengths, so a
// caller accepting arbitrary query text should cap its length.
//
// # Groups
//
// A concept with a label and aliases is one owner with several texts.
// NewGroupedChoices takes the owner of each text (non-decreasing, so that an
// owner's texts are adjacent) and Choices.ExtractGroups returns owners scored
// by the best of their texts, with the text that reached that score (the
// first one among equal scores), ordered by score descending and then by
// owner ascending. Number the owners in the order ties should be broken.
// Pruning works per text, so an owner with many aliases costs no more than
// its texts scored separately, usually much less.
package fuzzy
