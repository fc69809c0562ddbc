package harness

import (
	"regexp"
)

// messageShape is `<JSON path> = <value>: <what is wrong>; <fix>`.
var messageShape = regexp.MustCompile(`^[a-z_]+(\[\d+\])?(\.[a-z_]+(\[\d+\])?)* = [^:]+: [^;]+; .+$`)
