package featherbench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
)

// BenchmarkRunnerPool runs 64 trials against a model that takes 2ms per
// answer: the ratio between the concurrency settings shows the pool at
// work (ideally close to the concurrency), and concurrency 1 shows the
// harness's own overhead per trial on top of the model's 2ms.
func BenchmarkRunnerPool(b *testing.B) {
	tasks, err := LoadDir(testTasks)
	if err != nil {
		b.Fatal(err)
	}
	if tasks, err = Filter(tasks, []string{"realworld-veggie", "realworld-benign", "data-total", "security-injection"}, nil); err != nil {
		b.Fatal(err)
	}
	m := &fake.Model{Reply: func(lm.GenerateRequest) lm.GenerateResult {
		time.Sleep(2 * time.Millisecond)
		return lm.GenerateResult{Text: "A meat-free chickpea curry; three hearts; total 1250.5", StopReason: lm.StopEOS}
	}}
	for _, conc := range []int{1, 8} {
		b.Run(fmt.Sprintf("concurrency-%d", conc), func(b *testing.B) {
			for b.Loop() {
				r := &Runner{Trials: 16, Concurrency: conc}
				if _, err := r.RunModel(context.Background(), Model{Key: "m", Generator: m}, tasks); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
