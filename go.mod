module github.com/rules-offload/rules_offload

go 1.25.0

require (
	github.com/klauspost/compress v1.20.3
	go.starlark.net v0.0.0-20260908191801-89a6a09411d5
)

require golang.org/x/sys v0.42.0 // indirect
