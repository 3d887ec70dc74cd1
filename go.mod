module github.com/rules-offload/rules_offload

go 1.25

require github.com/klauspost/compress v1.20.3
