// Package imbriqua implements Imbriqua exactly as ../shared/rules/imbriqua.md gives it.
package imbriqua
