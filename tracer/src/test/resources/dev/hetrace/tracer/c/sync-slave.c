/*
 * A slave core for SyncHandshakeTest: its main loop traces `work` events while SIGUSR1, the
 * master's interrupt, runs the handshake's answer at any moment. Its clock runs 3 times as
 * fast as CLOCK_MONOTONIC from a far origin. Packets go through the callback platform to the
 * stream files of TRACE_DIR: `main`, and `sync` when the handler has a context of its own
 * (`own`). With `shared`, the handler traces on the main loop's context, and the main loop
 * spends most of its time inside tracepoints (a slow clock), where the answers land.
 *
 * Usage: sync-slave MAILBOX_FILE TRACE_DIR own|shared
 * Prints "ready" once the handler is installed, and at the end:
 * ANSWERED ANSWERED_UNTRACED NOTHING_TO_ANSWER WORK_EVENTS
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sy-platform-callback.h"
#include "sy-sync.h"

#define SLAVE_CORE 7
#define MASTER_CORE 1
#define CLOCK_SCALE 3
#define CLOCK_ORIGIN UINT64_C(500000000000000000)

static struct sy_sync_mailbox *mailbox;
static struct sy_platform_callback_ctx main_platform;
static struct sy_platform_callback_ctx sync_platform;
static struct sy_platform_callback_ctx *handler_platform;
static volatile sig_atomic_t answered, untraced, nothing;

static volatile sig_atomic_t slow_main_loop, in_handler;

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * UINT64_C(1000000000) + (uint64_t) ts.tv_nsec;
}

static uint64_t slave_clock(void *user_data)
{
	(void) user_data;

	if (slow_main_loop && !in_handler) {
		/* a slow clock: the main loop spends most of its time inside tracepoints */
		const uint64_t until = monotonic_ns() + 20000;

		while (monotonic_ns() < until) {
		}
	}

	return CLOCK_ORIGIN + CLOCK_SCALE * monotonic_ns();
}

/* write(2): safe in a signal handler, where packets of the handler's context are written */
static void packet_ready(const uint8_t *packet, uint32_t size, void *user_data)
{
	const int fd = *(const int *) user_data;

	while (size > 0) {
		const ssize_t n = write(fd, packet, size);

		if (n < 0 && errno == EINTR) {
			continue;
		}

		if (n <= 0) {
			_exit(3);
		}

		packet += n;
		size -= (uint32_t) n;
	}
}

static void on_master_request(int sig)
{
	const int saved_errno = errno;
	int r;

	(void) sig;
	in_handler = 1;
	r = sy_sync_slave_answer(mailbox, sy_platform_callback_get_barectf_ctx(handler_platform),
		SLAVE_CORE, MASTER_CORE, (uint8_t) 2);
	in_handler = 0;
	errno = saved_errno;

	if (r == SY_SYNC_ANSWERED) {
		answered++;
	} else if (r == SY_SYNC_ANSWERED_UNTRACED) {
		untraced++;
	} else {
		nothing++;
	}
}

static int open_stream(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
}

int main(int argc, char **argv)
{
	static uint8_t main_buf[1024];
	static uint8_t sync_buf[256];
	static int main_fd, sync_fd;
	struct sy_platform_callback_funcs funcs;
	struct sigaction sa;
	struct timespec pause_ts = {0, 50000};
	sigset_t usr1;
	volatile uint32_t *stop;
	unsigned char *shared;
	unsigned long work = 0;
	int fd, own;

	if (argc != 4) {
		return 2;
	}

	own = strcmp(argv[3], "own") == 0;
	slow_main_loop = !own;
	fd = open(argv[1], O_RDWR);
	shared = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (shared == MAP_FAILED) {
		perror("sync-slave: mailbox");
		return 2;
	}

	mailbox = (struct sy_sync_mailbox *) shared;
	stop = (volatile uint32_t *) (shared + 64);
	main_fd = open_stream(argv[2], "main");
	sync_fd = own ? open_stream(argv[2], "sync") : -1;

	if (main_fd < 0 || (own && sync_fd < 0)) {
		perror("sync-slave: stream file");
		return 2;
	}

	funcs.sys_clock = slave_clock;
	funcs.packet_ready = packet_ready;
	funcs.is_full = NULL;
	funcs.user_data = &main_fd;
	sy_platform_callback_init(&main_platform, main_buf, sizeof(main_buf), funcs);
	handler_platform = &main_platform;

	if (own) {
		funcs.user_data = &sync_fd;
		sy_platform_callback_init(&sync_platform, sync_buf, sizeof(sync_buf), funcs);
		handler_platform = &sync_platform;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_master_request;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	printf("ready\n");
	fflush(stdout);

	/* bursts of tracepoints, which the master's interrupts land in or between */
	while (!__atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
		int k;

		for (k = 0; k < 50; k++) {
			sy_main_trace_work(sy_platform_callback_get_barectf_ctx(&main_platform), (uint8_t) 1, (uint32_t) work++);
		}

		if (!slow_main_loop) {
			nanosleep(&pause_ts, NULL);
		}
	}

	/* flushing is not interrupt-safe: no more answers */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	sy_platform_callback_flush(&main_platform);

	if (own) {
		sy_platform_callback_flush(&sync_platform);
		close(sync_fd);
	}

	close(main_fd);
	printf("%ld %ld %ld %lu\n", (long) answered, (long) untraced, (long) nothing, work);
	return 0;
}
