package llamalib

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ebitengine/purego"

	"github.com/feather-eval/feather/internal/cachedir"
)

const (
	// Env overrides where the library is: a folder holding it, or the
	// libllama file itself.
	Env = "LLAMA_CPP_LIB"
	// PackageVersion is the @node-llama-cpp/linux-x64 release scripts/deps.sh pins.
	PackageVersion = "3.21.1"
	// Release is the llama.cpp release that package is built from, whose
	// llama.h the binding follows.
	Release = "v0.4.0"
	// FileName is libllama's name in the npm package; a folder may instead
	// hold a llama.cpp build's own libllama.so.
	FileName  = "libllama.v0.4.0.so"
	plainName = "libllama.so"
)

// DefaultDir is where `make deps` puts the libraries.
func DefaultDir() string {
	return cachedir.Path("llama.cpp", PackageVersion)
}

// Locate returns the path of libllama, or an error that says how to get it.
// getenv is os.Getenv in production and a map in tests.
func Locate(getenv func(string) string) (string, error) {
	p := getenv(Env)
	if p == "" {
		f := filepath.Join(DefaultDir(), FileName)
		if _, err := os.Stat(f); err != nil {
			return "", fmt.Errorf("llama.cpp library not found at %s. Run `make deps` (it unpacks it from the @node-llama-cpp/linux-x64 %s npm package), or set %s to the folder holding %s from llama.cpp %s", f, PackageVersion, Env, FileName, Release)
		}
		return f, nil
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("%s=%s: no such file or folder. Point %s at the folder holding %s from llama.cpp %s (or at that file), or unset it to use the libraries `make deps` provisions in %s", Env, p, Env, FileName, Release, DefaultDir())
	}
	if !st.IsDir() {
		return p, nil
	}
	for _, name := range []string{FileName, plainName} {
		f := filepath.Join(p, name)
		if st, err := os.Stat(f); err == nil && !st.IsDir() {
			return f, nil
		}
	}
	return "", fmt.Errorf("%s=%s holds neither %s nor %s. Point %s at the folder holding llama.cpp %s's libraries (libllama, libggml, libggml-base and the libggml-cpu-*.so variants), or unset it and run `make deps`", Env, p, FileName, plainName, Env, Release)
}

// Info describes the loaded library.
type Info struct {
	Path    string // libllama's path
	Version string // what llama_version reports, e.g. "0.4.0-dev"
	// CPUVariant is the libggml-cpu-<variant>.so ggml's dispatch chose for
	// this CPU (e.g. "haswell"), or "" when it could not be told.
	CPUVariant string
	// SystemInfo is llama_print_system_info: the CPU features in use.
	SystemInfo string
}

var (
	mu     sync.Mutex
	c      api
	loaded *Info
)

// Init loads the library once per process; later calls only check that
// LLAMA_CPP_LIB still names it. A failed attempt is not remembered, so a
// caller may fix the path and try again.
func Init() error {
	mu.Lock()
	defer mu.Unlock()
	p, err := Locate(os.Getenv)
	if err != nil {
		return err
	}
	if loaded != nil {
		if !sameFile(p, loaded.Path) {
			return fmt.Errorf("llama.cpp is already loaded from %s; %s now names %s, and a process loads the library once", loaded.Path, Env, p)
		}
		return nil
	}
	info, err := load(p)
	if err != nil {
		return err
	}
	loaded = info
	return nil
}

// Loaded reports the loaded library, or false before a successful Init.
func Loaded() (Info, bool) {
	mu.Lock()
	defer mu.Unlock()
	if loaded == nil {
		return Info{}, false
	}
	return *loaded, true
}

func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// load opens libllama (its RUNPATH finds libggml and libggml-base beside
// it), binds the API, routes the log, and lets ggml load the CPU backend
// variant that suits this machine from the same folder.
func load(path string) (*Info, error) {
	retry := fmt.Sprintf("Point %s at the folder holding %s from llama.cpp %s, or unset it and run `make deps`", Env, FileName, Release)
	handle, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("cannot load %s as llama.cpp (%v). %s", path, err, retry)
	}
	var a api
	if err := bindOne(handle, &a.version, "llama_version"); err != nil {
		return nil, fmt.Errorf("%s is not llama.cpp %s: %v. %s", path, Release, err, retry)
	}
	if v := a.version(); !versionOK(v) {
		return nil, fmt.Errorf("%s is llama.cpp %s, but feather binds llama.cpp %s, whose structs differ from other releases'. %s", path, v, Release, retry)
	}
	if err := a.bind(handle); err != nil {
		return nil, fmt.Errorf("%s is not llama.cpp %s: %v. %s", path, Release, err, retry)
	}
	c = a
	c.logSet(logCallback(), 0)
	c.backendInit()
	dir := filepath.Dir(path)
	mark := logs.mark()
	c.loadAllFrom(dir)
	if c.devByType(devTypeCPU) == 0 {
		return nil, fmt.Errorf("ggml found no CPU backend it can run in %s%s: the folder needs the libggml-cpu-*.so variants `make deps` unpacks beside %s", dir, logs.since(mark), FileName)
	}
	return &Info{
		Path:       path,
		Version:    a.version(),
		CPUVariant: cpuVariant(dir),
		SystemInfo: strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(c.systemInfo()), "|")),
	}, nil
}

// versionOK accepts the release and the dev builds made from its tag
// ("0.4.0-dev", as the npm package's is).
func versionOK(v string) bool {
	return v == boundVersion || strings.HasPrefix(v, boundVersion+"-")
}

// cpuVariant names the libggml-cpu-<variant>.so mapped into the process:
// ggml's dispatch opens each variant to score it and keeps only the best.
func cpuVariant(dir string) string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return ""
	}
	defer f.Close()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // the kernel lists mappings by their resolved path
	}
	prefix := filepath.Join(dir, "libggml-cpu-")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		i := strings.Index(line, prefix)
		if i < 0 {
			continue
		}
		return strings.TrimSuffix(line[i+len(prefix):], ".so")
	}
	return ""
}
