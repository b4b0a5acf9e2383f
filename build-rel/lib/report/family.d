build-rel/lib/report/family.o: report/family.c report/family.h
report/family.h:
