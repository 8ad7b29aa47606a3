package chat

import (
	"strings"

	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// gonja parses a conditional expression `A if B else C` only as the whole
// of a {{ }} or a set, not inside parentheses, lists, dicts or call
// arguments, nor chained; Gemma 3's template writes
// `(first_user_prefix if loop.first else "")`. rewriteConditionals turns
// every conditional into `((B) and [A] or [C])[0]`, which gonja parses
// anywhere and which keeps Jinja's semantics: B's truthiness decides, and
// only the chosen branch is evaluated. Without else, C is an undefined
// name, as in Jinja. Newlines are kept, so error line numbers still match
// the original source.
func rewriteConditionals(src string, cfg *config.Config) string {
	src = strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
	// Each pass rewrites one conditional; branches that held further
	// conditionals are now bracketed and found by the next pass.
	for range 10000 {
		next, changed := rewriteOne(src, cfg)
		if !changed {
			return src
		}
		src = next
	}
	return src
}

// undefinedName is a variable nothing defines: Jinja's value for a
// conditional without else.
const undefinedName = "__chat_undefined__"

// element is the expression being scanned inside one bracket group (or a
// whole {{ }} / set right-hand side): where it starts and the positions
// of its top-level if and else.
type element struct {
	start, ifPos, elsePos int
}

func rewriteOne(src string, cfg *config.Config) (string, bool) {
	stream := tokens.LexAll(src, cfg)
	var (
		stack     []*element // innermost last
		inBlock   bool
		blockWord string // first name of the current {% %} tag
		tagTokens int    // tokens seen in the current tag
	)
	open := func(after *tokens.Token) {
		stack = append(stack, &element{start: after.Pos + len(after.Val), ifPos: -1, elsePos: -1})
	}
	// closeElement ends the innermost element at end; it reports a rewrite.
	closeElement := func(end int) (string, bool) {
		e := stack[len(stack)-1]
		if e.ifPos < 0 {
			return "", false
		}
		a := src[e.start:e.ifPos]
		var b, c string
		if e.elsePos < 0 {
			b, c = src[e.ifPos+len("if"):end], undefinedName
		} else {
			b, c = src[e.ifPos+len("if"):e.elsePos], src[e.elsePos+len("else"):end]
		}
		return src[:e.start] + "((" + b + ") and [" + a + "] or [" + c + "])[0]" + src[end:], true
	}
	for ; !stream.End(); stream.Next() {
		tok := stream.Current()
		switch tok.Type {
		case tokens.VariableBegin:
			stack = stack[:0]
			open(tok)
			continue
		case tokens.BlockBegin:
			stack = stack[:0]
			inBlock, blockWord, tagTokens = true, "", 0
			continue
		case tokens.VariableEnd, tokens.BlockEnd:
			if len(stack) > 0 {
				if out, ok := closeElement(tok.Pos); ok {
					return out, true
				}
			}
			stack = stack[:0]
			inBlock = false
			continue
		}
		if inBlock {
			tagTokens++
			if tagTokens == 1 && tok.Type == tokens.Name {
				blockWord = tok.Val
				continue
			}
			// The right-hand side of {% set x = ... %} is an expression.
			if blockWord == "set" && len(stack) == 0 && tok.Type == tokens.Assign {
				open(tok)
				continue
			}
		}
		switch tok.Type {
		case tokens.LeftParenthesis, tokens.LeftBracket, tokens.LeftBrace:
			open(tok)
		case tokens.RightParenthesis, tokens.RightBracket, tokens.RightBrace:
			if len(stack) == 0 {
				continue
			}
			if out, ok := closeElement(tok.Pos); ok {
				return out, true
			}
			stack = stack[:len(stack)-1]
		case tokens.Comma, tokens.Colon, tokens.Assign:
			if len(stack) == 0 {
				continue
			}
			if out, ok := closeElement(tok.Pos); ok {
				return out, true
			}
			stack[len(stack)-1] = &element{start: tok.Pos + len(tok.Val), ifPos: -1, elsePos: -1}
		case tokens.Name:
			if len(stack) == 0 {
				continue
			}
			e := stack[len(stack)-1]
			switch {
			case tok.Val == "if" && e.ifPos < 0:
				e.ifPos = tok.Pos
			case tok.Val == "else" && e.ifPos >= 0 && e.elsePos < 0:
				e.elsePos = tok.Pos
			}
		}
	}
	return src, false
}
