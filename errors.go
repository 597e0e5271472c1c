package noema

import (
	"errors"
	"fmt"
	"syscall"
)

// Stable error codes. They are part of the public contract of the CLI
// (`--json` error objects) and of the MCP tools; never rename one.
const (
	ENOTFOUND         = "not_found"
	EINVALID          = "invalid_argument"
	ECONFLICT         = "conflict"
	EMETADATACONFLICT = "metadata_conflict"
	ECHECKSUM         = "checksum_mismatch"
	ETOOLARGE         = "too_large"
	EUNAVAILABLE      = "unavailable"
	EINTERNAL         = "internal"
	// EADDRINUSE: the address a server was asked to listen on is taken.
	EADDRINUSE = "address_in_use"
	// ENOSPACE: the disk (or the index) is full. A write that answers it
	// changed nothing; see the README's "When the disk is full".
	ENOSPACE = "no_space"
	// EREADONLY: the caller's token may only read (a read-only token of a
	// --token-file) and the tool would change the vault.
	EREADONLY = "read_only"
)

// IsCode reports whether s is one of the stable error codes.
func IsCode(s string) bool {
	switch s {
	case ENOTFOUND, EINVALID, ECONFLICT, EMETADATACONFLICT, ECHECKSUM, ETOOLARGE, EUNAVAILABLE, EINTERNAL, EADDRINUSE, ENOSPACE, EREADONLY:
		return true
	}
	return false
}

// Error is an error with a stable code, safe to show to a caller.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Details carries structured context (the owner of a conflicting key,
	// the conflicting metadata keys, …); it is optional.
	Details map[string]any `json:"details,omitempty"`
	// Param is the input parameter the error is about (its JSON name, as
	// in "confirm" or "min_score"), when there is one. Front ends use it
	// to name the parameter as their users know it: the CLI says --confirm.
	Param string `json:"-"`
	// Err is the underlying cause, if any, for errors.Is/As and the
	// operator's log. It is never shown to a caller: it is not part of
	// Error(), of the JSON encoding, or of ErrorMessage.
	Err error `json:"-"`
}

// Error implements the error interface.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the cause, so errors.Is and errors.As see through an *Error.
func (e *Error) Unwrap() error { return e.Err }

// WrapError returns an *Error with the given code and a formatted message
// whose cause is err. The cause's text is not added to the message.
func WrapError(err error, code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// WithParam records the input parameter e is about and returns e.
func (e *Error) WithParam(param string) *Error {
	e.Param = param
	return e
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, ENOSPACE
// for an uncoded error caused by a full disk (ENOSPC), EINTERNAL for any
// other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	code, _ := describe(err)
	return code
}

// ErrorMessage returns the message of the first *Error in err's chain, or a
// generic message for unexpected errors (their detail is for the operator's log).
func ErrorMessage(err error) string {
	_, msg := describe(err)
	return msg
}

// describe returns the code and message a caller is shown for err: those of
// the first *Error in its chain, EINTERNAL and a generic message for any other
// error, nothing for nil.
func describe(err error) (code, msg string) {
	if err == nil {
		return "", ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code, e.Message
	}
	if errors.Is(err, syscall.ENOSPC) {
		return ENOSPACE, "no space left on the device"
	}
	return EINTERNAL, "internal error"
}
