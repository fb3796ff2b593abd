#!/bin/sh
# Coverage is not collected offline; every test rule still names these targets.
exit 0
