package track

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// Shape legend of the token tracks: N sequences, T positions.

// TokenSplit holds N sequences of T tokens, sequence-major. Position t of
// sequence n sees Tokens[n*T : n*T+t+1] and, where Labels[n*T+t] >= 0, is
// scored on predicting Labels[n*T+t]; a negative label marks a position
// that is not scored.
type TokenSplit struct {
	// Tokens are the inputs, (N,T).
	Tokens []int32
	// Labels are the targets, (N,T); -1 where a position is not scored.
	Labels []int32
	// N is the number of sequences.
	N int
	// T is the number of positions of a sequence.
	T int
	// Vocab is the number of token ids: every token lies in [0, Vocab).
	Vocab int
}

// Seq returns the tokens and labels of sequence n, (T) each, as views
// capped at T so that an append cannot write into sequence n+1.
func (s *TokenSplit) Seq(n int) (tokens, labels []int32) {
	if n < 0 || n >= s.N {
		panic(fmt.Sprintf("track: sequence %d of a split of %d", n, s.N))
	}
	a, b := n*s.T, (n+1)*s.T
	return s.Tokens[a:b:b], s.Labels[a:b:b]
}

// Labelled returns the number of scored positions (labels >= 0).
func (s *TokenSplit) Labelled() int {
	k := 0
	for _, l := range s.Labels {
		if l >= 0 {
			k++
		}
	}
	return k
}

// TokenDataset is a token track: three splits drawn from disjoint random
// streams of one seed, and the set of ids a scored label of Val or Test
// can take.
type TokenDataset struct {
	// Name names the task ("mqar", "forgetting-mqar", "mad-recall", ...).
	Name string
	// Train, Val and Test are the splits.
	Train, Val, Test TokenSplit
	// Vocab is the number of token ids of every split.
	Vocab int
	// Answers are the token ids a label of Val or Test can take, sorted.
	Answers []int32
}

// References returns the reference scores of the track on Test's labelled
// positions (TokenReferences) and the ceiling "oracle": a reader that knows
// the task's definition. Every task of this package determines each scored
// label from the tokens before it (the tests check it with such a reader
// on every draw), so the ceiling is accuracy 1 and cross-entropy 0.
func (d *TokenDataset) References() []TokenReference {
	return append(TokenReferences(&d.Train, &d.Test, d.Answers), TokenReference{Name: "oracle", Accuracy: 1, CE: 0})
}

// TokenSizes is the number of sequences of each split.
type TokenSizes struct {
	// Train is the number of train sequences.
	Train int `json:"train"`
	// Val is the number of val sequences.
	Val int `json:"val"`
	// Test is the number of test sequences.
	Test int `json:"test"`
}

// maxTokenCells bounds N*T of one split (and Vocab), far above any size a
// CPU trains on, so that sizes from a mistyped config fail in Validate
// rather than in an allocation.
const maxTokenCells = 1 << 28

// check reports the sizes' problems for the task named who.
func (z TokenSizes) check(who string, t int, bad func(string, ...any)) {
	for _, f := range []struct {
		name string
		n    int
	}{{"train", z.Train}, {"val", z.Val}, {"test", z.Test}} {
		if f.n < 1 {
			bad("%s: sizes.%s = %d: every split needs at least one sequence; use e.g. 256", who, f.name, f.n)
		} else if t > 0 && f.n > maxTokenCells/t {
			bad("%s: sizes.%s = %d sequences of t = %d exceed %d tokens; draw fewer", who, f.name, f.n, t, maxTokenCells)
		}
	}
}

// badList collects config errors, each prefixed "track: ".
type badList []error

func (b *badList) add(format string, args ...any) {
	*b = append(*b, fmt.Errorf("track: "+format, args...))
}

func (b badList) err() error { return errors.Join(b...) }

// asciiStream packs an 8-byte name into a PCG stream constant, so that
// the streams of the token tracks read as their names ("mqar/trn").
func asciiStream(s string) uint64 {
	if len(s) != 8 {
		panic("track: a stream name has 8 bytes: " + s)
	}
	var u uint64
	for i := 0; i < 8; i++ {
		u = u<<8 | uint64(s[i])
	}
	return u
}

// splitStreams returns the three PCG streams of a task: "<tag>/trn",
// "<tag>/val", "<tag>/tst" for a 4-byte tag.
func splitStreams(tag string) [3]uint64 {
	return [3]uint64{asciiStream(tag + "/trn"), asciiStream(tag + "/val"), asciiStream(tag + "/tst")}
}

// Split indices passed to a sequence drawer.
const (
	splitTrain = iota
	splitVal
	splitTest
)

// drawTokens builds a dataset: split k is drawn in sequence order from
// rand.New(rand.NewPCG(seed, streams[k])), so a split depends only on the
// seed and its own size, and growing Train changes no Val or Test bit.
// draw fills one sequence's tokens (T) and labels (T), the labels
// pre-filled with -1, for the split index it is given.
func drawTokens(name string, vocab, t int, sizes TokenSizes, seed uint64, streams [3]uint64, answers []int32,
	draw func(r *rand.Rand, split int, tokens, labels []int32)) *TokenDataset {
	d := &TokenDataset{Name: name, Vocab: vocab, Answers: answers}
	for k, dst := range []*TokenSplit{&d.Train, &d.Val, &d.Test} {
		n := [3]int{sizes.Train, sizes.Val, sizes.Test}[k]
		*dst = TokenSplit{Tokens: make([]int32, n*t), Labels: make([]int32, n*t), N: n, T: t, Vocab: vocab}
		for i := range dst.Labels {
			dst.Labels[i] = -1
		}
		r := rand.New(rand.NewPCG(seed, streams[k]))
		for i := 0; i < n; i++ {
			tok, lab := dst.Seq(i)
			draw(r, k, tok, lab)
		}
	}
	return d
}

// idRange returns the ids [lo, hi) in order.
func idRange(lo, hi int) []int32 {
	ids := make([]int32, 0, hi-lo)
	for i := lo; i < hi; i++ {
		ids = append(ids, int32(i))
	}
	return ids
}

// distinct writes len(dst) distinct ids drawn uniformly from [lo, lo+n),
// in random order (a partial Fisher-Yates shuffle of pool, which it
// resets to lo..lo+n-1 first; len(pool) = n).
func distinct(r *rand.Rand, dst, pool []int32, lo int) {
	for i := range pool {
		pool[i] = int32(lo + i)
	}
	for i := range dst {
		j := i + r.IntN(len(pool)-i)
		pool[i], pool[j] = pool[j], pool[i]
		dst[i] = pool[i]
	}
}
