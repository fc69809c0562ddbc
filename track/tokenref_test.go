package track

import (
	"math"
	"testing"
)

// TestTokenReferencesByHand scores the references on splits small enough
// to count by hand.
func TestTokenReferencesByHand(t *testing.T) {
	// Answers {5, 6, 7}. Train labelled pairs (token -> label):
	// 1->5, 1->5, 2->6, 3->9 (9 is no answer: ignored), so counts
	// 5:2, 6:1, 7:0 (C = 3), after 1: 5:2, after 2: 6:1.
	train := TokenSplit{
		Tokens: []int32{1, 1, 2, 3, 0, 0},
		Labels: []int32{5, 5, 6, 9, -1, -1},
		N:      2, T: 3, Vocab: 10,
	}
	// Test labelled pairs: 1->5, 2->6, 4->7, 2->5.
	test := TokenSplit{
		Tokens: []int32{1, 2, 4, 2},
		Labels: []int32{5, 6, 7, 5},
		N:      1, T: 4, Vocab: 10,
	}
	got := TokenReferences(&train, &test, []int32{5, 6, 7})
	ln := math.Log
	// majority predicts 5: right on 1->5 and 2->5, 2 of 4; smoothed p =
	// (c+1)/(3+3): 5: 3/6, 6: 2/6, 7: 1/6.
	// bigram: after 1 -> 5 (p 3/5), after 2 -> 6 (p 6: 2/4, 5: 1/4),
	// after 4 (unseen) -> majority 5 (p 1/3 each): right on 1->5 and
	// 2->6, 2 of 4.
	want := []TokenReference{
		{"chance", 1.0 / 3, ln(3)},
		{"majority", 0.5, -(ln(3.0/6) + ln(2.0/6) + ln(1.0/6) + ln(3.0/6)) / 4},
		{"bigram", 0.5, -(ln(3.0/5) + ln(2.0/4) + ln(1.0/3) + ln(1.0/4)) / 4},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d references", len(got))
	}
	for i, w := range want {
		t.Run(w.Name, func(t *testing.T) {
			g := got[i]
			if g.Name != w.Name || math.Abs(g.Accuracy-w.Accuracy) > 1e-15 || math.Abs(g.CE-w.CE) > 1e-12 {
				t.Errorf("got %+v, want %+v", g, w)
			}
		})
	}
	t.Run("empty-train", func(t *testing.T) {
		// No train label: majority and bigram fall back to the smallest
		// answer with uniform smoothed probabilities.
		empty := TokenSplit{Tokens: []int32{0}, Labels: []int32{-1}, N: 1, T: 1, Vocab: 10}
		r := TokenReferences(&empty, &test, []int32{5, 6, 7})
		for _, x := range r {
			if math.Abs(x.CE-ln(3)) > 1e-12 {
				t.Errorf("%s CE %v, want ln 3", x.Name, x.CE)
			}
		}
		if r[1].Accuracy != 0.5 || r[2].Accuracy != 0.5 {
			t.Errorf("majority %v bigram %v, want 0.5 (label 5 twice of 4)", r[1].Accuracy, r[2].Accuracy)
		}
	})
	t.Run("panics", func(t *testing.T) {
		bad := TokenSplit{Tokens: []int32{1}, Labels: []int32{9}, N: 1, T: 1, Vocab: 10}
		unlabelled := TokenSplit{Tokens: []int32{1}, Labels: []int32{-1}, N: 1, T: 1, Vocab: 10}
		for name, f := range map[string]func(){
			"label-not-answer": func() { TokenReferences(&train, &bad, []int32{5, 6, 7}) },
			"no-labels":        func() { TokenReferences(&train, &unlabelled, []int32{5, 6, 7}) },
			"unsorted-answers": func() { TokenReferences(&train, &test, []int32{6, 5, 7}) },
			"no-answers":       func() { TokenReferences(&train, &test, nil) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: no panic", name)
					}
				}()
				f()
			}()
		}
	})
}

// TestTokenReferencesOnTracks: on every default track the oracle is last
// at accuracy 1 and CE 0 and chance is 1/|A|; the numbers are logged.
func TestTokenReferencesOnTracks(t *testing.T) {
	for _, task := range tokenTasks() {
		t.Run(task.name, func(t *testing.T) {
			d, err := task.build(false, TokenSizes{Train: 2048, Val: 16, Test: 1024}, 1)
			if err != nil {
				t.Fatal(err)
			}
			r := d.References()
			if len(r) != 4 || r[3].Name != "oracle" || r[3].Accuracy != 1 || r[3].CE != 0 {
				t.Fatalf("references %+v", r)
			}
			for _, x := range r {
				t.Logf("%-8s accuracy %.4f CE %.4f", x.Name, x.Accuracy, x.CE)
			}
			if r[0].Accuracy != 1/float64(len(d.Answers)) {
				t.Errorf("chance %v", r[0].Accuracy)
			}
		})
	}
}
