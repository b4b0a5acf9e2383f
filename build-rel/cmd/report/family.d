build-rel/cmd/report/family.o: report/family.c report/family.h
report/family.h:
