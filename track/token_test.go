package track

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// tokenTask is one token track under test: its name, a builder for a
// config of given sizes and seed, and a reader that re-derives each
// scored label of sequence tok from the definition, failing t if one
// disagrees or a structural invariant breaks.
type tokenTask struct {
	name  string
	build func(ci bool, sizes TokenSizes, seed uint64) (*TokenDataset, error)
	check func(t *testing.T, d *TokenDataset, split int, tok, lab []int32)
}

// tokenBuild returns a task's builder: the CI or default config with the
// given sizes and seed, drawn by draw.
func tokenBuild[C any](ciC, defC C, draw func(C) (*TokenDataset, error)) func(bool, TokenSizes, uint64) (*TokenDataset, error) {
	return func(ci bool, z TokenSizes, seed uint64) (*TokenDataset, error) {
		c := defC
		if ci {
			c = ciC
		}
		v := reflect.ValueOf(&c).Elem()
		v.FieldByName("Sizes").Set(reflect.ValueOf(z))
		v.FieldByName("Seed").SetUint(seed)
		return draw(c)
	}
}

func tokenTasks() []tokenTask {
	ciMQ, defMQ := CIMQARConfig(), DefaultMQARConfig()
	ciF, defF := CIForgettingMQARConfig(), DefaultForgettingMQARConfig()
	ciNoisy := CIMADRecallConfig()
	ciNoisy.NoiseVocab, ciNoisy.Noise = 4, 0.5
	return []tokenTask{
		{"mqar", tokenBuild(ciMQ, defMQ, MQAR), func(t *testing.T, d *TokenDataset, _ int, tok, lab []int32) {
			c := defMQ
			if d.Vocab == ciMQ.Vocab {
				c = ciMQ
			}
			checkMQAR(t, d.Vocab, c.Pairs, 0, tok, lab)
		}},
		{"forgetting-mqar", tokenBuild(ciF, defF, ForgettingMQAR), func(t *testing.T, d *TokenDataset, _ int, tok, lab []int32) {
			c := defF
			if d.Vocab == ciF.Vocab {
				c = ciF
			}
			checkMQAR(t, d.Vocab, c.Pairs, c.Updates, tok, lab)
		}},
		{"mad-recall", tokenBuild(CIMADRecallConfig(), DefaultMADRecallConfig(), MADRecall), checkMADRecall},
		{"mad-noisy-recall", tokenBuild(ciNoisy, DefaultMADNoisyRecallConfig(), MADRecall), checkMADRecall},
		{"mad-fuzzy-recall", tokenBuild(CIMADFuzzyRecallConfig(), DefaultMADFuzzyRecallConfig(), MADFuzzyRecall), checkMADFuzzy},
		{"mad-selective-copy", tokenBuild(CIMADSelectiveCopyConfig(), DefaultMADSelectiveCopyConfig(), MADSelectiveCopy), checkSelectiveCopy},
	}
}

// checkMQAR reads an MQAR or forgetting-MQAR sequence: distinct keys in
// [1, V/2) and values in [V/2, V) in the context, every key queried once
// after it at an even offset, and each query labelled with the last value
// of its key.
func checkMQAR(t *testing.T, vocab, pairs, updates int, tok, lab []int32) {
	t.Helper()
	half := int32(vocab / 2)
	ctx := 2 * (pairs + updates)
	last := map[int32]int32{}
	updated := map[int32]bool{}
	for j := 0; j < ctx; j += 2 {
		k, v := tok[j], tok[j+1]
		if k < 1 || k >= half || v < half || v >= int32(vocab) {
			t.Fatalf("pair %d: key %d or value %d out of range", j/2, k, v)
		}
		old, ok := last[k]
		switch {
		case j < 2*pairs && ok:
			t.Fatalf("key %d repeated among the first pairs", k)
		case j >= 2*pairs && (!ok || old == v || updated[k]):
			t.Fatalf("update %d: key %d (before: %v, updated: %v) keeps value %d", j/2-pairs, k, ok, updated[k], v)
		}
		updated[k] = j >= 2*pairs
		last[k] = v
	}
	queried := map[int32]bool{}
	for i, l := range lab {
		if l < 0 {
			continue
		}
		if i < ctx || (i-ctx)%2 != 0 || i > len(tok)-2 {
			t.Fatalf("label at position %d, not a query slot", i)
		}
		want, ok := last[tok[i]]
		if !ok || l != want || queried[tok[i]] {
			t.Fatalf("query of key %d at %d: label %d, last value %d (known %v, queried before %v)", tok[i], i, l, want, ok, queried[tok[i]])
		}
		queried[tok[i]] = true
	}
	if len(queried) != pairs {
		t.Fatalf("%d keys queried, want %d", len(queried), pairs)
	}
	for _, x := range tok {
		if x < 0 || x >= int32(vocab) {
			t.Fatalf("token %d out of [0, %d)", x, vocab)
		}
	}
}

// madRecallLayout recovers a recall track's key and noise limits from its
// answers: keys [0, K), values [K, ns), noise [ns, Vocab).
func madRecallLayout(d *TokenDataset) (nk, ns int32) {
	return d.Answers[0], d.Answers[len(d.Answers)-1] + 1
}

// checkMADRecall reads a (noisy) in-context recall sequence slot by slot:
// keys map to one value each, a Val/Test label sits exactly on the key of
// each pair whose key was shown before (the value being the next token),
// the last position queries a shown key, and Train labels are the next
// tokens.
func checkMADRecall(t *testing.T, d *TokenDataset, split int, tok, lab []int32) {
	t.Helper()
	nk, ns := madRecallLayout(d)
	mem := map[int32]int32{}
	n := len(tok)
	for i := 0; i < n; i += 2 {
		k := tok[i]
		if k >= ns {
			if i+1 < n && tok[i+1] < ns {
				t.Fatalf("noise slot at %d mixes in id %d", i, tok[i+1])
			}
			if lab[i] >= 0 && split != splitTrain {
				t.Fatalf("label on noise at %d", i)
			}
			continue
		}
		if k >= nk {
			t.Fatalf("slot at %d opens with value %d", i, k)
		}
		v, seen := mem[k]
		if split != splitTrain {
			if seen != (lab[i] >= 0) || (seen && lab[i] != v) {
				t.Fatalf("key %d at %d: label %d, reader (seen %v) says %d", k, i, lab[i], seen, v)
			}
			if i+1 < n && lab[i+1] >= 0 {
				t.Fatalf("label on the value at %d", i+1)
			}
		}
		if i+1 < n {
			if tok[i+1] < nk || tok[i+1] >= ns || (seen && tok[i+1] != v) {
				t.Fatalf("key %d at %d has value %d, before %d", k, i, tok[i+1], v)
			}
			mem[k] = tok[i+1]
		} else if !seen {
			t.Fatalf("final query of key %d never shown", k)
		}
	}
	if split == splitTrain {
		checkNextToken(t, tok, lab)
	}
}

// checkNextToken checks MAD's train labels: the next token everywhere.
func checkNextToken(t *testing.T, tok, lab []int32) {
	t.Helper()
	if !slices.Equal(tok[1:], lab[:len(lab)-1]) || lab[len(lab)-1] < 0 {
		t.Fatalf("train labels are not the next tokens")
	}
}

// checkMADFuzzy reads a fuzzy recall sequence as runs of key ids and of
// value ids after the pad: each key motif keeps one value motif, and a
// scored position is either the end of a key motif shown before (label:
// the first token of its value) or inside such a value (label: the next
// token of the value); the last position is scored in Val and Test, whose
// key motifs all have one length.
func checkMADFuzzy(t *testing.T, d *TokenDataset, split int, tok, lab []int32) {
	t.Helper()
	nk, ns := d.Answers[0], d.Answers[len(d.Answers)-1]+1
	pad := ns
	i := 0
	for i < len(tok) && tok[i] == pad {
		if split != splitTrain && lab[i] >= 0 {
			t.Fatalf("label on the pad at %d", i)
		}
		i++
	}
	if i == 0 {
		t.Fatalf("no pad before the instance")
	}
	mem := map[string][]int32{}
	var key, val []int32
	keyLen := 0 // Val and Test keys all have KeyMotif ids
	for ; i < len(tok); i++ {
		x := tok[i]
		switch {
		case x < nk:
			if len(val) > 0 {
				checkMotif(t, mem, key, val)
				if split != splitTrain && len(key) != keyLen && keyLen > 0 {
					t.Fatalf("val/test key motif %v, another had %d ids", key, keyLen)
				}
				keyLen = len(key)
				key, val = nil, nil
			}
			key = append(key, x)
		case x < ns:
			if len(key) == 0 {
				t.Fatalf("value %d at %d follows no key", x, i)
			}
			val = append(val, x)
		default:
			t.Fatalf("pad or foreign id %d at %d inside the instance", x, i)
		}
		if split == splitTrain || lab[i] < 0 {
			continue
		}
		v, ok := mem[string(motifKey(key))]
		if !ok || len(val) >= len(v) || lab[i] != v[len(val)] {
			t.Fatalf("position %d (key %v, value so far %v): label %d, reader knows %v (%v)", i, key, val, lab[i], v, ok)
		}
	}
	if split == splitTrain {
		checkNextToken(t, tok, lab)
	} else if lab[len(lab)-1] < 0 {
		t.Fatalf("the closing query is not scored")
	}
}

// checkMotif records a finished pair, failing if its key had another value.
func checkMotif(t *testing.T, mem map[string][]int32, key, val []int32) {
	t.Helper()
	for a := range key {
		for b := a + 1; b < len(key); b++ {
			if key[a] == key[b] {
				t.Fatalf("key motif %v repeats an id", key)
			}
		}
	}
	s := string(motifKey(key))
	if old, ok := mem[s]; ok && !slices.Equal(old, val) {
		t.Fatalf("key %v had value %v, now %v", key, old, val)
	}
	mem[s] = slices.Clone(val)
}

// checkSelectiveCopy reads a selective copying sequence: tokens and blanks,
// the copy token, blanks labelled with the non-blank tokens in order.
func checkSelectiveCopy(t *testing.T, d *TokenDataset, _ int, tok, lab []int32) {
	t.Helper()
	blank, cp := int32(d.Vocab-2), int32(d.Vocab-1)
	at := slices.Index(tok, cp)
	if at < 1 || tok[at-1] == blank {
		t.Fatalf("copy token at %d after %v", at, tok[:max(at, 0)])
	}
	var src []int32
	for i, x := range tok[:at] {
		if lab[i] >= 0 {
			t.Fatalf("label before the copy token at %d", i)
		}
		if x != blank {
			src = append(src, x)
		}
	}
	n := len(tok) - at - 1
	if len(src) != n || lab[at] >= 0 {
		t.Fatalf("%d tokens to copy, %d answer positions", len(src), n)
	}
	for i := 0; i < n; i++ {
		if tok[at+1+i] != blank || lab[at+1+i] != src[i] {
			t.Fatalf("answer %d: token %d label %d, want blank and %d", i, tok[at+1+i], lab[at+1+i], src[i])
		}
	}
}

// TestTokenTracksRead draws every task (CI and default configs) and reads
// each sequence of each split with its task's reader, which is the oracle
// of TokenDataset.References: it must predict every label.
func TestTokenTracksRead(t *testing.T) {
	for _, task := range tokenTasks() {
		for _, ci := range []bool{true, false} {
			name := task.name + "/default"
			z := TokenSizes{Train: 256, Val: 64, Test: 256}
			if ci {
				name, z = task.name+"/ci", TokenSizes{Train: 512, Val: 64, Test: 512}
			}
			t.Run(name, func(t *testing.T) {
				d, err := task.build(ci, z, 7)
				if err != nil {
					t.Fatal(err)
				}
				if d.Name != task.name {
					t.Errorf("name %q", d.Name)
				}
				if !slices.IsSorted(d.Answers) || len(d.Answers) == 0 {
					t.Errorf("answers %v", d.Answers)
				}
				for k, s := range []*TokenSplit{&d.Train, &d.Val, &d.Test} {
					if len(s.Tokens) != s.N*s.T || len(s.Labels) != s.N*s.T || s.Vocab != d.Vocab {
						t.Fatalf("split %d: shape N=%d T=%d, %d tokens %d labels", k, s.N, s.T, len(s.Tokens), len(s.Labels))
					}
					for n := 0; n < s.N; n++ {
						tok, lab := s.Seq(n)
						for i, x := range tok {
							if x < 0 || int(x) >= d.Vocab || lab[i] >= int32(d.Vocab) {
								t.Fatalf("split %d seq %d pos %d: token %d label %d", k, n, i, x, lab[i])
							}
							if k != splitTrain && lab[i] >= 0 && !slices.Contains(d.Answers, lab[i]) {
								t.Fatalf("split %d: label %d is not an answer", k, lab[i])
							}
						}
						task.check(t, d, k, tok, lab)
					}
				}
				for _, r := range d.References() {
					if math.IsNaN(r.CE) || math.IsInf(r.CE, 0) || r.Accuracy < 0 || r.Accuracy > 1 {
						t.Errorf("reference %+v", r)
					}
				}
			})
		}
	}
}

// TestMQARLabelCount: every MQAR and forgetting-MQAR sequence carries one
// label per pair.
func TestMQARLabelCount(t *testing.T) {
	for _, task := range tokenTasks()[:2] {
		t.Run(task.name, func(t *testing.T) {
			d, err := task.build(false, TokenSizes{Train: 64, Val: 8, Test: 8}, 3)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := d.Train.Labelled(), 64*8; got != want {
				t.Errorf("%d labels, want %d", got, want)
			}
		})
	}
}

// slotMean is the exact mean of one slot drawn with weights w:
// sum_g g w_g / sum_g w_g.
func slotMean(w []float64) float64 {
	var num, den float64
	for g, x := range w {
		num += float64(g) * x
		den += x
	}
	return num / den
}

// TestGapLaw checks the query slots against the power law p(x) ∝ a x^(a-1)
// of x = g+1, a = 0.01:
//
//   - one slot drawn from S slots has mean E[g] = Σ g w_g / Σ w_g with
//     w_g = (g+1)^(a-1). As a -> 0, w_g -> 1/(g+1) and g/(g+1) = 1 -
//     1/(g+1), so E[g] -> (S - H_S)/H_S = S/H_S - 1 (H_S the harmonic
//     number); for S = 24, a = 0.01 both are about 5.41;
//   - the CI config draws 4 of S = 8 slots without replacement; the exact
//     mean slot is computed by summing over the subsets reached in order.
func TestGapLaw(t *testing.T) {
	t.Run("one-slot", func(t *testing.T) {
		const s, a, n = 24, 0.01, 200000
		w := gapWeights(s, a)
		h := 0.0
		for g := 1; g <= s; g++ {
			h += 1 / float64(g)
		}
		exact := slotMean(w)
		if approx := s/h - 1; math.Abs(exact-approx) > 0.02*approx {
			t.Fatalf("exact mean %.4f far from the a->0 limit %.4f", exact, approx)
		}
		r := rand.New(rand.NewPCG(1, 2))
		scratch, dst := make([]float64, s), make([]int, 1)
		var sum, sq float64
		for i := 0; i < n; i++ {
			powerSlots(r, w, scratch, dst)
			g := float64(dst[0])
			sum += g
			sq += g * g
		}
		mean := sum / n
		se := math.Sqrt((sq/n - mean*mean) / n)
		if math.Abs(mean-exact) > 4*se {
			t.Errorf("mean slot %.4f, exact %.4f (se %.4f)", mean, exact, se)
		}
		t.Logf("S=%d a=%g: mean slot %.4f, exact %.4f, S/H_S-1 = %.4f", s, a, mean, exact, s/h-1)
	})
	t.Run("mqar-ci", func(t *testing.T) {
		c := CIMQARConfig()
		c.Sizes = TokenSizes{Train: 20000, Val: 1, Test: 1}
		d, err := MQAR(c)
		if err != nil {
			t.Fatal(err)
		}
		ctx := 2 * c.Pairs
		s := (c.T - ctx) / 2
		exact := subsetSlotMean(gapWeights(s, c.A), c.Pairs)
		var sum, sq float64
		for n := 0; n < d.Train.N; n++ {
			_, lab := d.Train.Seq(n)
			tot := 0.0
			for i, l := range lab {
				if l >= 0 {
					tot += float64(i-ctx) / 2
				}
			}
			sum += tot / float64(c.Pairs)
			sq += tot * tot / float64(c.Pairs*c.Pairs)
		}
		n := float64(d.Train.N)
		mean := sum / n
		se := math.Sqrt((sq/n - mean*mean) / n)
		if math.Abs(mean-exact) > 4*se {
			t.Errorf("mean query slot %.4f, exact %.4f (se %.4f)", mean, exact, se)
		}
		t.Logf("S=%d, %d draws: mean query slot %.4f, exact %.4f", s, c.Pairs, mean, exact)
	})
}

// subsetSlotMean is the exact mean slot of k slots drawn by successive
// sampling without replacement: P(set ∪ {g}) += P(set) w_g / (W - w(set)).
func subsetSlotMean(w []float64, k int) float64 {
	s := len(w)
	prob := make([]float64, 1<<s)
	prob[0] = 1
	total := 0.0
	for _, x := range w {
		total += x
	}
	mean := 0.0
	for mask := 0; mask < 1<<s; mask++ {
		if prob[mask] == 0 {
			continue
		}
		taken, sum, size := 0.0, 0.0, 0
		for g := 0; g < s; g++ {
			if mask&(1<<g) != 0 {
				taken += w[g]
				sum += float64(g)
				size++
			}
		}
		if size == k {
			mean += prob[mask] * sum / float64(k)
			continue
		}
		for g := 0; g < s; g++ {
			if mask&(1<<g) == 0 {
				prob[mask|1<<g] += prob[mask] * w[g] / (total - taken)
			}
		}
	}
	return mean
}

// TestMADNoiseFraction: the noise tokens of noisy recall take a fraction
// 2f(P-2)/T of the T inputs (P = (T+1)/2 slots; the last is the query and
// one other is always a pair), within 4 standard errors of the slot count
// f(1-f)(P-2) per sequence.
func TestMADNoiseFraction(t *testing.T) {
	for _, f := range []float64{0.2, 0.6} {
		t.Run(fmt.Sprintf("noise=%g", f), func(t *testing.T) {
			c := DefaultMADNoisyRecallConfig()
			c.Noise, c.Sizes = f, TokenSizes{Train: 2000, Val: 1, Test: 1}
			d, err := MADRecall(c)
			if err != nil {
				t.Fatal(err)
			}
			_, ns := madRecallLayout(d)
			noise := 0
			for _, x := range d.Train.Tokens {
				if x >= ns {
					noise++
				}
			}
			p := float64((c.T + 1) / 2)
			n := float64(d.Train.N)
			slots := float64(noise) / 2
			want := f * (p - 2) * n
			se := math.Sqrt(f * (1 - f) * (p - 2) * n)
			if math.Abs(slots-want) > 4*se {
				t.Errorf("%v noise slots, want %v ± %.1f", slots, want, 4*se)
			}
			t.Logf("noise fraction of inputs %.4f, expected %.4f", float64(noise)/float64(len(d.Train.Tokens)), 2*f*(p-2)/float64(c.T))
		})
	}
}

// splitHash is the FNV-64a hash of a split's tokens and labels.
func splitHash(s *TokenSplit) uint64 {
	h := fnv.New64a()
	var b [4]byte
	for _, buf := range [][]int32{s.Tokens, s.Labels} {
		for _, x := range buf {
			b[0], b[1], b[2], b[3] = byte(x>>24), byte(x>>16), byte(x>>8), byte(x)
			h.Write(b[:])
		}
	}
	return h.Sum64()
}

// TestTokenDeterminism: the same seed gives the same bits; a bigger Train
// keeps Val, Test and the first Train sequences; Train, Val and Test are
// not copies of one another; another seed changes every split.
func TestTokenDeterminism(t *testing.T) {
	for _, task := range tokenTasks() {
		t.Run(task.name, func(t *testing.T) {
			small := TokenSizes{Train: 16, Val: 16, Test: 16}
			a, err := task.build(true, small, 5)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := task.build(true, small, 5)
			big, _ := task.build(true, TokenSizes{Train: 40, Val: 16, Test: 16}, 5)
			other, _ := task.build(true, small, 6)
			for k, pair := range [][2]*TokenSplit{{&a.Train, &b.Train}, {&a.Val, &b.Val}, {&a.Test, &b.Test}} {
				if splitHash(pair[0]) != splitHash(pair[1]) {
					t.Errorf("split %d differs between two draws", k)
				}
			}
			if splitHash(&a.Val) != splitHash(&big.Val) || splitHash(&a.Test) != splitHash(&big.Test) {
				t.Errorf("a bigger train split changed val or test")
			}
			if !slices.Equal(a.Train.Tokens, big.Train.Tokens[:len(a.Train.Tokens)]) {
				t.Errorf("a bigger train split changed its first sequences")
			}
			if slices.Equal(a.Train.Tokens, a.Val.Tokens) || slices.Equal(a.Train.Tokens, a.Test.Tokens) || slices.Equal(a.Val.Tokens, a.Test.Tokens) {
				t.Errorf("two splits share their tokens")
			}
			if slices.Equal(a.Train.Tokens, other.Train.Tokens) || slices.Equal(a.Test.Tokens, other.Test.Tokens) {
				t.Errorf("another seed gave the same split")
			}
		})
	}
	t.Run("streams", func(t *testing.T) {
		seen := map[uint64]string{}
		for name, s := range map[string][3]uint64{"mqar": mqarStreams, "fmqr": forgettingStreams,
			"madr": madRecallStreams, "madf": madFuzzyStreams, "mads": madCopyStreams, "panel": panelStreams} {
			for _, x := range s {
				if seen[x] != "" {
					t.Errorf("stream %x of %s is also %s's", x, name, seen[x])
				}
				seen[x] = name
			}
		}
		if seen[sequenceStream] != "" {
			t.Errorf("sequence stream shared with %s", seen[sequenceStream])
		}
	})
}

// TestTokenPinned pins the hashes and first tokens of the default configs,
// so that any change to a generator's draws is seen.
func TestTokenPinned(t *testing.T) {
	cases := []struct {
		task  int
		name  string
		first []int32   // the first 8 test tokens
		hash  [3]uint64 // train, val, test
	}{
		{0, "mqar", []int32{18, 77, 35, 67, 50, 125, 13, 111}, [3]uint64{0xb891efd9522b472f, 0x1eb964c53472155, 0x27c30506b01456e0}},
		{1, "forgetting-mqar", []int32{13, 103, 58, 110, 32, 115, 53, 71}, [3]uint64{0x76094fbcbf8e64f8, 0x8a239e388fd5edf6, 0xaaef12e39197a51b}},
		{2, "mad-recall", []int32{0, 11, 3, 10, 3, 10, 7, 11}, [3]uint64{0x15dc688478d5620f, 0x983e213930002c7a, 0x72c83abc01f4bb24}},
		{3, "mad-noisy-recall", []int32{0, 11, 18, 19, 3, 9, 4, 13}, [3]uint64{0x37576e490c17bcbd, 0x8068a750bc4cd6ac, 0xef3c71a32ccadf3e}},
		{4, "mad-fuzzy-recall", []int32{15, 15, 15, 15, 15, 15, 3, 6}, [3]uint64{0xb9d5631de6e3c05d, 0xd390d0115e935474, 0x8f2de527f0d20a4b}},
		{5, "mad-selective-copy", []int32{14, 14, 14, 14, 11, 14, 14, 14}, [3]uint64{0xfd1aded32c0e30e5, 0xb33d136de221d455, 0xa3d4fa8adcf21585}},
	}
	tasks := tokenTasks()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := tasks[c.task].build(false, defaultTokenSizes, 1)
			if err != nil {
				t.Fatal(err)
			}
			got := [3]uint64{splitHash(&d.Train), splitHash(&d.Val), splitHash(&d.Test)}
			if got != c.hash || !slices.Equal(d.Test.Tokens[:8], c.first) {
				t.Errorf("hashes %#x, first test tokens %v; pinned %#x, %v", got, d.Test.Tokens[:8], c.hash, c.first)
			}
		})
	}
}

// TestTokenValidate: each bad field is named in the error with its fix,
// and the defaults and CI configs are valid.
func TestTokenValidate(t *testing.T) {
	mq := func(f func(*MQARConfig)) error { c := CIMQARConfig(); f(&c); return c.Validate() }
	fm := func(f func(*ForgettingMQARConfig)) error { c := CIForgettingMQARConfig(); f(&c); return c.Validate() }
	rc := func(f func(*MADRecallConfig)) error { c := CIMADRecallConfig(); f(&c); return c.Validate() }
	fz := func(f func(*MADFuzzyRecallConfig)) error { c := CIMADFuzzyRecallConfig(); f(&c); return c.Validate() }
	sc := func(f func(*MADSelectiveCopyConfig)) error {
		c := CIMADSelectiveCopyConfig()
		f(&c)
		return c.Validate()
	}
	cases := []struct {
		name string
		err  error
		want string // "" for a valid config
	}{
		{"mqar-default", DefaultMQARConfig().Validate(), ""},
		{"mqar-ci", CIMQARConfig().Validate(), ""},
		{"mqar-vocab", mq(func(c *MQARConfig) { c.Vocab = 3 }), "mqar: vocab = 3"},
		// 4 pairs need 4 keys: vocab 8 has only [1, 4).
		{"mqar-pairs-keys", mq(func(c *MQARConfig) { c.Vocab = 8 }), "mqar: pairs = 4 needs vocab/2-1 >= pairs distinct keys, vocab = 8 has 3; raise vocab to at least 10"},
		// A vocab above its own bound is no fix: the hint lowers pairs
		// to what the bound and t's bound allow.
		{"mqar-pairs-beyond-vocab", mq(func(c *MQARConfig) { c.Pairs = 1 << 30 }), "mqar: pairs = 1073741824 needs a vocab of 2147483650, above vocab's bound 268435456; lower pairs to at most 67108864"},
		{"mqar-pairs-t", mq(func(c *MQARConfig) { c.Pairs = 7 }), "mqar: pairs = 7, updates = 0 need t >= 2*(pairs+updates) + 2*pairs = 28"},
		{"mqar-pairs-zero", mq(func(c *MQARConfig) { c.Pairs = 0 }), "mqar: pairs = 0"},
		{"mqar-t-odd", mq(func(c *MQARConfig) { c.T = 25 }), "mqar: t = 25"},
		{"mqar-a", mq(func(c *MQARConfig) { c.A = math.NaN() }), "mqar: a = NaN"},
		{"mqar-a-zero", mq(func(c *MQARConfig) { c.A = 0 }), "mqar: a = 0"},
		{"mqar-sizes", mq(func(c *MQARConfig) { c.Sizes.Val = 0 }), "mqar: sizes.val = 0"},
		{"mqar-sizes-huge", mq(func(c *MQARConfig) { c.Sizes.Train = 1 << 30 }), "mqar: sizes.train = 1073741824"},
		{"forgetting-default", DefaultForgettingMQARConfig().Validate(), ""},
		{"forgetting-updates", fm(func(c *ForgettingMQARConfig) { c.Updates = 5 }), "forgetting-mqar: updates = 5"},
		{"forgetting-updates-negative", fm(func(c *ForgettingMQARConfig) { c.Updates = -1 }), "forgetting-mqar: updates = -1"},
		{"forgetting-t", fm(func(c *ForgettingMQARConfig) { c.T = 18 }), "forgetting-mqar: pairs = 4, updates = 2 need t >= 2*(pairs+updates) + 2*pairs = 20"},
		{"recall-default", DefaultMADRecallConfig().Validate(), ""},
		{"noisy-default", DefaultMADNoisyRecallConfig().Validate(), ""},
		{"recall-t-even", rc(func(c *MADRecallConfig) { c.T = 16 }), "mad-recall: t = 16"},
		{"recall-noise", rc(func(c *MADRecallConfig) { c.Noise = 1 }), "mad-recall: noise = 1"},
		{"recall-noise-vocab", rc(func(c *MADRecallConfig) { c.Noise = 0.2 }), "mad-recall: noise = 0.2 needs noise_vocab >= 1"},
		{"recall-noise-vocab-big", rc(func(c *MADRecallConfig) { c.NoiseVocab = 15 }), "mad-recall: noise_vocab = 15"},
		{"recall-sizes", rc(func(c *MADRecallConfig) { c.Sizes.Test = -1 }), "mad-recall: sizes.test = -1"},
		{"fuzzy-default", DefaultMADFuzzyRecallConfig().Validate(), ""},
		{"fuzzy-vocab", fz(func(c *MADFuzzyRecallConfig) { c.Vocab = 2 }), "mad-fuzzy-recall: vocab = 2"},
		// 15 ids: keys [0, 7), so a key motif of 8 distinct ids cannot be.
		{"fuzzy-key-motif", fz(func(c *MADFuzzyRecallConfig) { c.KeyMotif = 8 }), "mad-fuzzy-recall: key_motif = 8"},
		{"fuzzy-value-motif", fz(func(c *MADFuzzyRecallConfig) { c.ValueMotif = 0 }), "mad-fuzzy-recall: value_motif = 0"},
		{"fuzzy-t", fz(func(c *MADFuzzyRecallConfig) { c.T = 11 }), "mad-fuzzy-recall: t = 11"},
		{"copy-default", DefaultMADSelectiveCopyConfig().Validate(), ""},
		{"copy-vocab", sc(func(c *MADSelectiveCopyConfig) { c.Vocab = 2 }), "mad-selective-copy: vocab = 2"},
		{"copy-copy", sc(func(c *MADSelectiveCopyConfig) { c.Copy = 0 }), "mad-selective-copy: copy = 0"},
		// t = 2*copy+1 leaves no blank to select against.
		{"copy-t", sc(func(c *MADSelectiveCopyConfig) { c.T = 9 }), "mad-selective-copy: t = 9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			switch {
			case c.want == "" && c.err != nil:
				t.Errorf("valid config rejected: %v", c.err)
			case c.want != "" && (c.err == nil || !strings.Contains(c.err.Error(), c.want)):
				t.Errorf("error %v, want one containing %q", c.err, c.want)
			case c.want != "" && !strings.HasPrefix(c.err.Error(), "track: "):
				t.Errorf("error %q lacks the package prefix", c.err)
			}
		})
	}
	t.Run("constructors", func(t *testing.T) {
		for _, err := range []error{
			second(MQAR(MQARConfig{})), second(ForgettingMQAR(ForgettingMQARConfig{})), second(MADRecall(MADRecallConfig{})),
			second(MADFuzzyRecall(MADFuzzyRecallConfig{})), second(MADSelectiveCopy(MADSelectiveCopyConfig{})),
		} {
			if err == nil {
				t.Errorf("a zero config was accepted")
			}
		}
	})
}

func second(_ *TokenDataset, err error) error { return err }

// TestTokenSplitSeq: Seq returns capped views of one sequence.
func TestTokenSplitSeq(t *testing.T) {
	s := TokenSplit{Tokens: []int32{1, 2, 3, 4, 5, 6}, Labels: []int32{-1, 7, -1, -1, 8, 9}, N: 2, T: 3, Vocab: 10}
	tok, lab := s.Seq(1)
	if !slices.Equal(tok, []int32{4, 5, 6}) || !slices.Equal(lab, []int32{-1, 8, 9}) || cap(tok) != 3 || cap(lab) != 3 {
		t.Errorf("Seq(1) = %v %v (caps %d %d)", tok, lab, cap(tok), cap(lab))
	}
	tok, _ = s.Seq(0)
	if cap(tok) != 3 {
		t.Errorf("Seq(0) cap %d", cap(tok))
	}
	if got := s.Labelled(); got != 3 {
		t.Errorf("Labelled = %d, want 3", got)
	}
}

// BenchmarkTokenTracks draws each default token track, all three splits.
func BenchmarkTokenTracks(b *testing.B) {
	for _, task := range tokenTasks() {
		b.Run("task="+task.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := task.build(false, defaultTokenSizes, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
