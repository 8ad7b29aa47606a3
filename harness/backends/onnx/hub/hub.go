// Package hub downloads model repositories from the Hugging Face Hub into
// the standard hub cache (models--org--name/{blobs,snapshots,refs}), the
// layout Python's huggingface_hub reads and writes, so downloads are shared
// with it both ways. It fetches only what the onnx backend opens: the
// config, generation config, tokenizer and chat-template files, and one
// ONNX file with its external data. Transfers resume with Range requests,
// are verified against the Hub's ETag (sha256 for LFS files, the git blob
// id for the rest), move into place by rename, and hold the same per-blob
// file locks as huggingface_hub. A 429 or 5xx answer is asked again after
// a backoff or the answer's Retry-After. Pull serves `feather pull`;
// Ensure serves catalog entries that name a repository: the cached
// snapshot when complete, without a request, else a pull.
package hub

import (
	"fmt"
	"regexp"
	"strings"
)

// DefaultRevision is the branch pulled when a reference names none.
const DefaultRevision = "main"

// Ref names a model repository and a revision (branch, tag or commit).
type Ref struct {
	Repo     string // org/name
	Revision string
}

func (r Ref) String() string { return r.Repo + "@" + r.Revision }

var (
	repoPartRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	commitRE   = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// ParseRef reads ORG/NAME[@REVISION]; the revision defaults to main.
func ParseRef(s string) (Ref, error) {
	repo, rev, hasRev := strings.Cut(s, "@")
	if hasRev && rev == "" {
		return Ref{}, fmt.Errorf("%q has an empty revision after @; write ORG/NAME@REVISION (a branch, tag or commit) or leave out the @", s)
	}
	if !hasRev {
		rev = DefaultRevision
	}
	org, name, ok := strings.Cut(repo, "/")
	if !ok || strings.Contains(name, "/") || !repoPartRE.MatchString(org) || !repoPartRE.MatchString(name) ||
		strings.Contains(repo, "--") || strings.Contains(repo, "..") {
		return Ref{}, fmt.Errorf("%q is not a model repository; write ORG/NAME[@REVISION], e.g. HuggingFaceTB/SmolLM2-135M-Instruct@main", s)
	}
	if strings.Contains(rev, "..") || strings.HasPrefix(rev, "/") || strings.HasSuffix(rev, "/") {
		return Ref{}, fmt.Errorf("%q: revision %q is not a branch, tag or commit", s, rev)
	}
	return Ref{Repo: repo, Revision: rev}, nil
}

// isCommit reports whether rev is a full commit hash, which needs no
// lookup: it cannot move.
func isCommit(rev string) bool { return commitRE.MatchString(rev) }

// repoFolder is the repository's folder name in the cache,
// models--org--name, as huggingface_hub names it.
func repoFolder(repo string) string {
	return "models--" + strings.ReplaceAll(repo, "/", "--")
}
