package plural

import "testing"

func TestOf(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0 trials"}, {1, "1 trial"}, {2, "2 trials"}, {100, "100 trials"}} {
		if got := Of(tt.n, "trial"); got != tt.want {
			t.Errorf("Of(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
