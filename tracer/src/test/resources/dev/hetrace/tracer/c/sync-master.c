/*
 * The master for SyncHandshakeTest, a Linux process with the linux-file platform (its clock:
 * CLOCK_MONOTONIC): EXCHANGES handshakes with the slave, PERIOD_US apart, its interrupt being
 * SIGUSR1; then it tells the slave to stop (the word at offset 64 of the mailbox file).
 *
 * Usage: sync-master MAILBOX_FILE STREAM_FILE SLAVE_PID EXCHANGES PERIOD_US
 * Prints: OK TIMEOUT NOT_DELIVERED, then one line per exchange: SEQ RESULT
 */
#define _XOPEN_SOURCE 700

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "sy-platform-linux-file.h"
#include "sy-sync.h"

#define MASTER_CORE 1
#define SLAVE_CORE 7

static int interrupt_slave(void *user_data)
{
	return kill(*(const pid_t *) user_data, SIGUSR1);
}

static int pause_a_little(void *user_data)
{
	struct timespec ts = {0, 2000};

	(void) user_data;
	nanosleep(&ts, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	static int results[100000];
	static uint32_t seqs[100000];
	struct sy_platform_linux_file_ctx *platform;
	struct sy_sync_master master;
	struct timespec period;
	unsigned char *shared;
	pid_t slave;
	long exchanges, i, ok = 0, timeouts = 0, undelivered = 0;
	int fd;

	if (argc != 6) {
		return 2;
	}

	fd = open(argv[1], O_RDWR);
	shared = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	platform = sy_platform_linux_file_init(512, argv[2]);

	if (shared == MAP_FAILED || !platform) {
		perror("sync-master");
		return 2;
	}

	slave = (pid_t) atol(argv[3]);
	exchanges = atol(argv[4]);
	period.tv_sec = 0;
	period.tv_nsec = atol(argv[5]) * 1000L;

	if (exchanges > 100000) {
		return 2;
	}

	master.mailbox = (struct sy_sync_mailbox *) shared;
	master.ctx = sy_platform_linux_file_get_barectf_ctx(platform);
	master.core = MASTER_CORE;
	master.peer = SLAVE_CORE;
	master.interrupt = interrupt_slave;
	master.wait = pause_a_little;
	master.max_polls = 500000; /* a second or more: then the exchange times out */
	master.user_data = &slave;

	for (i = 0; i < exchanges; i++) {
		results[i] = sy_sync_master_exchange(&master, (uint8_t) 0);
		seqs[i] = master.seq;
		ok += results[i] == SY_SYNC_OK;
		timeouts += results[i] == SY_SYNC_TIMEOUT;
		undelivered += results[i] == SY_SYNC_NOT_DELIVERED;
		nanosleep(&period, NULL);
	}

	__atomic_store_n((uint32_t *) (shared + 64), 1, __ATOMIC_RELEASE);
	sy_platform_linux_file_fini(platform);
	printf("%ld %ld %ld\n", ok, timeouts, undelivered);

	for (i = 0; i < exchanges; i++) {
		printf("%lu %d\n", (unsigned long) seqs[i], results[i]);
	}

	return 0;
}
