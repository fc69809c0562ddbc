package harness

// The seed corpora are testdata/fuzz/FuzzParseProtocol and
// testdata/fuzz/FuzzParseReport (valid, truncated, mistyped and hostile
// inputs); `go test` runs them with the f.Add seeds below, and
//
//	go test -run '^$' -fuzz '^FuzzParseReport$' -fuzztime 60s ./harness/
//
// searches further.
