// Package testkit holds in-memory fakes of noema's index ports, so that a
// service's tests run on a fake of its port instead of a SQLite index.
//
// Each fake keeps what a test puts in it in plain Go values and answers
// every method of its port by the port's contract (documented on the
// interface), the way the SQLite adapter does: unknown ids are skipped
// where the contract says so, lists are fresh copies, versions change on
// every change. The fakes import only the root package and the standard
// library; a service's test asserts that a fake satisfies its port (for
// the ports still declared in a service package) with
//
//	var _ noema.ConceptIndex = (*testkit.Concepts)(nil)
//
// Every fake is safe for concurrent use.
package testkit
