package track

import (
	"fmt"
	"math"
)

// TokenReference is the score of a reference predictor on the labelled
// positions of a token split.
type TokenReference struct {
	// Name names the predictor: chance, majority, bigram or oracle.
	Name string `json:"name"`
	// Accuracy is the fraction of labelled positions predicted exactly.
	Accuracy float64 `json:"accuracy"`
	// CE is the mean cross-entropy in nats of the predictor's distribution
	// at the labelled positions; always finite.
	CE float64 `json:"ce"`
}

// TokenReferences scores three references on test's labelled positions,
// each fitted on train's labelled positions whose label is in answers
// (train labels outside answers, such as the next-token labels MAD puts on
// every train position, are ignored, as no scored test label takes them):
//
//   - chance: uniform over answers, accuracy 1/|A| and CE ln|A|;
//   - majority: always the most frequent train label (ties to the smaller
//     id); its distribution is the add-one smoothed train frequencies
//     (c_a+1)/(C+|A|) over answers;
//   - bigram: the most frequent train label after the current token (ties
//     to the smaller id; the majority label for a token never seen at a
//     train label), with distribution (c_xa+1)/(c_x+|A|) over answers.
//
// The add-one smoothing keeps every CE finite. answers are sorted distinct
// ids in [0, Vocab); a test label outside them, or a test split without
// labelled positions, is a programmer error and panics.
func TokenReferences(train, test *TokenSplit, answers []int32) []TokenReference {
	na := len(answers)
	if na == 0 {
		panic("track: token references need a non-empty answer set")
	}
	vocab := max(train.Vocab, test.Vocab)
	index := make([]int, vocab) // token id -> answer index, -1 if none
	for i := range index {
		index[i] = -1
	}
	for i, a := range answers {
		if a < 0 || int(a) >= vocab || (i > 0 && a <= answers[i-1]) {
			panic(fmt.Sprintf("track: answers must be sorted distinct ids in [0, %d): %d at %d", vocab, a, i))
		}
		index[a] = i
	}
	unigram := make([]float64, na)     // (A) train label counts
	pair := make([]float64, vocab*na)  // (Vocab,A) counts of label after token
	rowTotal := make([]float64, vocab) // (Vocab)
	for i, l := range train.Labels {
		if l < 0 || int(l) >= vocab || index[l] < 0 {
			continue
		}
		a, x := index[l], train.Tokens[i]
		unigram[a]++
		pair[int(x)*na+a]++
		rowTotal[x]++
	}
	argmax := func(c []float64) int {
		best := 0
		for a := range c {
			if c[a] > c[best] {
				best = a
			}
		}
		return best
	}
	total := 0.0
	for _, c := range unigram {
		total += c
	}
	major := argmax(unigram)
	var n, hitMajor, hitBigram, ceMajor, ceBigram float64
	for i, l := range test.Labels {
		if l < 0 {
			continue
		}
		if int(l) >= vocab || index[l] < 0 {
			panic(fmt.Sprintf("track: test label %d is not an answer", l))
		}
		a, x := index[l], int(test.Tokens[i])
		n++
		if a == major {
			hitMajor++
		}
		ceMajor -= math.Log((unigram[a] + 1) / (total + float64(na)))
		row := pair[x*na : (x+1)*na]
		pred := major
		if rowTotal[x] > 0 {
			pred = argmax(row)
		}
		if a == pred {
			hitBigram++
		}
		ceBigram -= math.Log((row[a] + 1) / (rowTotal[x] + float64(na)))
	}
	if n == 0 {
		panic("track: token references need a test split with labelled positions")
	}
	return []TokenReference{
		{Name: "chance", Accuracy: 1 / float64(na), CE: math.Log(float64(na))},
		{Name: "majority", Accuracy: hitMajor / n, CE: ceMajor / n},
		{Name: "bigram", Accuracy: hitBigram / n, CE: ceBigram / n},
	}
}
