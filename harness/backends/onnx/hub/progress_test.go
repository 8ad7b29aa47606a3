package hub

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// clock advances by step each time it is read.
func clock(step time.Duration) func() time.Time {
	t := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(step)
		return t
	}
}

func TestMeterPlainLines(t *testing.T) {
	var b strings.Builder
	m := &Meter{W: &b, Now: clock(10 * time.Second)}
	m.Start(2, 3<<20)
	m.File("config.json", 1<<20, 0)
	m.Add(1 << 20) // 10 s
	m.File("onnx/model.onnx_data", 2<<20, 512<<10)
	for range 6 { // 20 s … 70 s
		m.Add(128 << 10)
	}
	m.Note("waiting for another download of x")
	m.Done()
	assert.Equal(t, `downloading 2 files, 3.0 MiB
[1/2] config.json (1.0 MiB)
[2/2] onnx/model.onnx_data (2.0 MiB, resuming at 512.0 KiB)
onnx/model.onnx_data: 1.8 MiB / 3.0 MiB (58%), 42.7 KiB/s, ETA 30s
onnx/model.onnx_data: 2.1 MiB / 3.0 MiB (70%), 27.7 KiB/s, ETA 32s
waiting for another download of x
downloaded 1.8 MiB in 1m20s (22.4 KiB/s)
`, b.String(), "a line per file and one every 30 s")
}

func TestMeterTerminalBar(t *testing.T) {
	var b strings.Builder
	m := &Meter{W: &b, TTY: true, Width: 100, Now: clock(time.Second)}
	m.Start(1, 4<<20)
	m.File("onnx/model.onnx", 4<<20, 0)
	m.Add(1 << 20)
	m.Note("note")
	m.Width = 72 // the file name gives way on a narrow terminal
	m.Add(1 << 20)
	m.Done()
	assert.Equal(t, "downloading 1 file, 4.0 MiB\n"+
		"\r\033[K[1/1] onnx/model.onnx [                    ] 0 B / 4.0 MiB (0%)"+
		"\r\033[K[1/1] onnx/model.onnx [=====               ] 1.0 MiB / 4.0 MiB (25%), 512.0 KiB/s, ETA 6s"+
		"\r\033[Knote\n"+
		"\r\033[K[1/1 [==========          ] 2.0 MiB / 4.0 MiB (50%), 682.7 KiB/s, ETA 3s"+
		"\r\033[Kdownloaded 2.0 MiB in 4s (512.0 KiB/s)\n", b.String())
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 30: "5.0 GiB", 3 << 40: "3.0 TiB"} {
		assert.Equal(t, want, FormatBytes(n))
	}
}

// A second round (external data only the downloaded ONNX file named)
// counts its files and bytes from zero.
func TestMeterSecondRound(t *testing.T) {
	var b strings.Builder
	m := &Meter{W: &b, Now: clock(10 * time.Second)}
	m.Start(1, 1<<20)
	m.File("onnx/model.onnx", 1<<20, 0)
	m.Add(1 << 20)
	m.Done()
	m.Start(1, 2<<20)
	m.File("onnx/weights.bin", 2<<20, 0)
	m.Add(2 << 20)
	m.Done()
	assert.Equal(t, `downloading 1 file, 1.0 MiB
[1/1] onnx/model.onnx (1.0 MiB)
downloaded 1.0 MiB in 20s (51.2 KiB/s)
downloading 1 file, 2.0 MiB
[1/1] onnx/weights.bin (2.0 MiB)
downloaded 2.0 MiB in 20s (102.4 KiB/s)
`, b.String())
}
