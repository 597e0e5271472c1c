// Package testkit holds in-memory fakes of noema's index ports, so that a
// service's tests run on a fake of its port instead of a SQLite index.
//
// Each fake keeps what a test puts in it in plain Go values and answers
// every method of its port by the port's contract (documented on the
// interface), the way the SQLite adapter does: unknown ids are skipped
// where the contract says so, lists are fresh copies, versions change on
// every change. The fakes import only the root package and the standard
// library; each asserts the ports it implements, as
//
//	var _ noema.ConceptIndex = (*Concepts)(nil)
//
// The fakes and their ports:
//
//   - [Graph]: [noema.GraphSource] (package graph); [Graph.Mentions] over
//     the same nodes and edges: [noema.MentionIndex] (package recall).
//   - [Concepts]: [noema.ConceptIndex] (package concepts); [Concepts.Sync]
//     indexes written files into it ([noema.IndexSync]).
//   - [Notes]: [noema.NoteIndex] (package notes), its links in a Concepts;
//     [Notes.Sync] indexes written files into it.
//   - [Relations]: [noema.RelationIndex] and [noema.IndexSync] (package
//     relations).
//   - [Search]: [noema.SearchIndex] (package search).
//   - [Semantic]: [noema.SemanticIndex] (package semantic), its concepts in
//     a Concepts.
//   - [Words]: [noema.Embedder], a bag of words that passes the embedder
//     conformance suite.
//
// An IndexSync fake derives what a synced file holds with a function the
// test gives (reading the file from its vault), the parse step of the
// SQLite indexer: testkit reads no vault.
//
// Every fake is safe for concurrent use.
package testkit
