#!/bin/sh
# A stand-in clang for analysis tests; never run.
exit 1
