/* src/exec/runid.h — the ids of the execution loops' runs: sortable by time, unique within a second. */
#ifndef RTK_RUNID_H
#define RTK_RUNID_H

/* The longest id written, with its NUL. */
#define RUNID_MAX 64

/*
 * Writes "20261124T060000Z-a1b2c3" into out: the UTC time of rtk_time_now() (SOURCE_DATE_EPOCH
 * honoured) and 6 random hex digits, so ids sort by start time and two runs in one second still
 * differ. Used in file and folder names, and in stash messages.
 */
void runid_new(char out[RUNID_MAX]);

#endif
