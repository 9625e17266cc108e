module github.com/zerogames/zero

go 1.26
