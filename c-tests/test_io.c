/*
 * test_io.c - area 10 of API.md: the I/O registry and the built-in stdio and
 * memory-mapped back-ends, called directly.
 *
 * Functions covered: blosc2_register_io_cb, blosc2_get_io_cb,
 * blosc2_stdio_open/close/size/write/read/truncate/destroy,
 * blosc2_stdio_mmap_open/close/size/write/read/truncate/destroy.
 *
 * Checked: return values for good and bad arguments, file contents on disk,
 * and the fields of blosc2_stdio_mmap that callers read after use (addr,
 * file_size, mapping_size).
 *
 * Not tested because the reference crashes: blosc2_stdio_mmap_* on a NULL
 * stream (size, write, truncate dereference it), registering an io with a
 * NULL name over an existing id.
 *
 * No reference bugs are compiled out here.
 */
#include "b2rs_test.h"

#include <sys/stat.h>

static char t_paths[8][256];
static int t_next_path = 0;

/* A scratch file name (each call returns a new buffer, 8 in rotation). */
static const char *tmp_path(const char *name) {
  char *p = t_paths[t_next_path++ % 8];
  snprintf(p, 256, "/tmp/b2rs_test_io_%d_%s", (int)getpid(), name);
  return p;
}

static long file_size_of(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return -1;
  return (long)st.st_size;
}

static void write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (f) {
    if (n) fwrite(data, 1, n, f);
    fclose(f);
  }
}

static void read_file(const char *path, void *data, size_t n) {
  FILE *f = fopen(path, "rb");
  if (f) {
    size_t r = fread(data, 1, n, f);
    (void)r;
    fclose(f);
  }
}

static void test_registry_defaults(void) {
  blosc2_io_cb *fs = blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM);
  CHECK(fs != NULL);
  if (!fs) return;
  CHECK_EQ(fs->id, BLOSC2_IO_FILESYSTEM);
  CHECK_STR(fs->name, "filesystem");
  CHECK(fs->is_allocation_necessary);
  CHECK(fs->open == (blosc2_open_cb)blosc2_stdio_open);
  CHECK(fs->close == (blosc2_close_cb)blosc2_stdio_close);
  CHECK(fs->size == (blosc2_size_cb)blosc2_stdio_size);
  CHECK(fs->write == (blosc2_write_cb)blosc2_stdio_write);
  CHECK(fs->read == (blosc2_read_cb)blosc2_stdio_read);
  CHECK(fs->truncate == (blosc2_truncate_cb)blosc2_stdio_truncate);
  CHECK(fs->destroy == (blosc2_destroy_cb)blosc2_stdio_destroy);
  CHECK(blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM) == fs); /* stable */

  blosc2_io_cb *mm = blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM_MMAP);
  CHECK(mm != NULL);
  if (!mm) return;
  CHECK_EQ(mm->id, BLOSC2_IO_FILESYSTEM_MMAP);
  CHECK_STR(mm->name, "filesystem_mmap");
  CHECK(!mm->is_allocation_necessary);
  CHECK(mm->open == (blosc2_open_cb)blosc2_stdio_mmap_open);
  CHECK(mm->read == (blosc2_read_cb)blosc2_stdio_mmap_read);
  CHECK(mm->destroy == (blosc2_destroy_cb)blosc2_stdio_mmap_destroy);

  CHECK(blosc2_get_io_cb(2) == NULL);
  CHECK(blosc2_get_io_cb(31) == NULL);
  CHECK(blosc2_get_io_cb(160) == NULL);
  CHECK(blosc2_get_io_cb(255) == NULL);
}

static int my_opens = 0;
static void *my_open(const char *urlpath, const char *mode, void *params) {
  my_opens++;
  return blosc2_stdio_open(urlpath, mode, params);
}

static void test_register(void) {
  CHECK_EQ(blosc2_register_io_cb(NULL), BLOSC2_ERROR_INVALID_PARAM);
  blosc2_io_cb cb = *blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM);
  cb.name = "mine";
  cb.open = my_open;
  cb.id = 0;
  CHECK_EQ(blosc2_register_io_cb(&cb), BLOSC2_ERROR_PLUGIN_IO);
  cb.id = 7;
  CHECK_EQ(blosc2_register_io_cb(&cb), BLOSC2_ERROR_PLUGIN_IO);
  cb.id = 159;
  CHECK_EQ(blosc2_register_io_cb(&cb), BLOSC2_ERROR_PLUGIN_IO);
  CHECK(blosc2_get_io_cb(159) == NULL);
  cb.id = 160;
  CHECK_EQ(blosc2_register_io_cb(&cb), 0);
  blosc2_io_cb *got = blosc2_get_io_cb(160);
  CHECK(got != NULL);
  if (!got) return;
  CHECK(got != &cb); /* a copy */
  CHECK_EQ(got->id, 160);
  CHECK_STR(got->name, "mine");
  CHECK(got->open == my_open);
  /* same id and name again: fine; same id, other name: refused */
  CHECK_EQ(blosc2_register_io_cb(&cb), 0);
  cb.name = "other";
  CHECK_EQ(blosc2_register_io_cb(&cb), BLOSC2_ERROR_PLUGIN_IO);
  CHECK_STR(blosc2_get_io_cb(160)->name, "mine");
  cb.id = 255;
  CHECK_EQ(blosc2_register_io_cb(&cb), 0);
  CHECK_STR(blosc2_get_io_cb(255)->name, "other");
  /* the registered callbacks are the user's */
  const char *p = tmp_path("reg");
  void *s = got->open(p, "wb", NULL);
  CHECK_EQ(my_opens, 1);
  CHECK(s != NULL);
  if (s) CHECK_EQ(got->close(s), 0);
  remove(p);
}

static void test_stdio_roundtrip(void) {
  const char *p = tmp_path("stdio");
  remove(p);
  CHECK(blosc2_stdio_open(p, "rb", NULL) == NULL); /* missing file */
  void *s = blosc2_stdio_open(p, "wb", NULL);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(((blosc2_stdio_file *)s)->file != NULL);
  CHECK_EQ(blosc2_stdio_size(s), 0);
  const char msg[] = "0123456789abcdef";
  CHECK_EQ(blosc2_stdio_write(msg, 1, 16, 0, s), 16);
  CHECK_EQ(blosc2_stdio_write(msg, 4, 2, 100, s), 2); /* beyond the end: a hole */
  CHECK_EQ(blosc2_stdio_size(s), 108);
  CHECK_EQ(blosc2_stdio_write(msg, 0, 5, 0, s), 0);
  CHECK_EQ(blosc2_stdio_truncate(s, 20), 0);
  CHECK_EQ(blosc2_stdio_size(s), 20);
  CHECK_EQ(blosc2_stdio_close(s), 0);
  CHECK_EQ(file_size_of(p), 20);

  s = blosc2_stdio_open(p, "rb", NULL);
  CHECK(s != NULL);
  if (!s) return;
  uint8_t buf[32];
  memset(buf, 0xEE, sizeof buf);
  void *bp = buf;
  CHECK_EQ(blosc2_stdio_read(&bp, 1, 10, 3, s), 10);
  CHECK(bp == buf);
  CHECK_MEM(buf, "3456789abc", 10);
  CHECK_EQ(buf[10], 0xEE);
  /* items of 4 bytes: only whole items count; a short read returns fewer */
  CHECK_EQ(blosc2_stdio_read(&bp, 4, 2, 0, s), 2);
  CHECK_EQ(blosc2_stdio_read(&bp, 4, 8, 0, s), 5);
  CHECK_EQ(blosc2_stdio_read(&bp, 1, 8, 16, s), 4);
  CHECK_MEM(buf, "\0\0\0\0", 4);
  CHECK_EQ(blosc2_stdio_read(&bp, 1, 8, 1000, s), 0);
  CHECK_EQ(blosc2_stdio_read(&bp, 0, 8, 0, s), 0);
  /* read only: writes fail */
  CHECK_EQ(blosc2_stdio_write(msg, 1, 4, 0, s), 0);
  CHECK_EQ(blosc2_stdio_close(s), 0);

  /* rb+ keeps the content and writes in place */
  s = blosc2_stdio_open(p, "rb+", NULL);
  CHECK(s != NULL);
  if (!s) return;
  CHECK_EQ(blosc2_stdio_write("XY", 1, 2, 4, s), 2);
  CHECK_EQ(blosc2_stdio_close(s), 0);
  uint8_t disk[20];
  read_file(p, disk, 20);
  CHECK_MEM(disk, "0123XY6789abcdef\0\0\0\0", 20);
  /* ab appends */
  s = blosc2_stdio_open(p, "ab", NULL);
  CHECK(s != NULL);
  if (s) {
    CHECK_EQ(blosc2_stdio_write("Z", 1, 1, blosc2_stdio_size(s), s), 1);
    CHECK_EQ(blosc2_stdio_close(s), 0);
  }
  CHECK_EQ(file_size_of(p), 21);
  CHECK_EQ(blosc2_stdio_destroy(NULL), 0);
  remove(p);
}

static void test_stdio_bad_args(void) {
  const char *p = tmp_path("stdio_bad");
  CHECK(blosc2_stdio_open(NULL, "rb", NULL) == NULL);
  CHECK(blosc2_stdio_open(p, NULL, NULL) == NULL);
  CHECK_EQ(blosc2_stdio_close(NULL), -1);
  CHECK_EQ(blosc2_stdio_size(NULL), -1);
  CHECK_EQ(blosc2_stdio_truncate(NULL, 0), -1);
  uint8_t buf[8] = {0}; /* written to the file: initialised (valgrind) */
  void *bp = buf;
  CHECK_EQ(blosc2_stdio_write(buf, 1, 1, 0, NULL), 0);
  CHECK_EQ(blosc2_stdio_read(&bp, 1, 1, 0, NULL), 0);
  void *s = blosc2_stdio_open(p, "wb+", NULL);
  CHECK(s != NULL);
  if (!s) return;
  CHECK_EQ(blosc2_stdio_write(NULL, 1, 1, 0, s), 0);
  CHECK_EQ(blosc2_stdio_write(buf, -1, 1, 0, s), 0);
  CHECK_EQ(blosc2_stdio_write(buf, 1, -1, 0, s), 0);
  CHECK_EQ(blosc2_stdio_write(buf, 1, 1, -1, s), 0);
  CHECK_EQ(blosc2_stdio_write(buf, INT64_MAX, 2, 0, s), 0); /* overflow */
  CHECK_EQ(blosc2_stdio_read(NULL, 1, 1, 0, s), 0);
  CHECK_EQ(blosc2_stdio_read(&bp, 1, 1, -1, s), 0);
  void *nullbuf = NULL;
  CHECK_EQ(blosc2_stdio_write(buf, 1, 8, 0, s), 8);
  CHECK_EQ(blosc2_stdio_read(&nullbuf, 1, 1, 0, s), 0);
  CHECK_EQ(blosc2_stdio_truncate(s, -1), -1);
  CHECK_EQ(blosc2_stdio_close(s), 0);
  /* a stream whose FILE* was cleared */
  blosc2_stdio_file empty = {NULL};
  CHECK_EQ(blosc2_stdio_size(&empty), -1);
  CHECK_EQ(blosc2_stdio_truncate(&empty, 0), -1);
  CHECK_EQ(blosc2_stdio_write(buf, 1, 1, 0, &empty), 0);
  CHECK_EQ(blosc2_stdio_read(&bp, 1, 1, 0, &empty), 0);
  CHECK_EQ(blosc2_stdio_close(&empty), -1);
  remove(p);
}

static void test_mmap_write_read(void) {
  const char *p = tmp_path("mmap_w");
  remove(p);
  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "w+";
  mm.initial_mapping_size = 64;
  void *s = blosc2_stdio_mmap_open(p, "wb", &mm);
  CHECK(s == &mm);
  if (!s) return;
  CHECK(mm.addr != NULL);
  CHECK(mm.mode == NULL); /* not kept */
  CHECK_EQ(mm.file_size, 0);
  CHECK_EQ(mm.mapping_size, 64);
  CHECK_EQ(blosc2_stdio_mmap_size(s), 0);
  /* a second open of the same path gives the same stream */
  CHECK(blosc2_stdio_mmap_open(p, "rb", &mm) == &mm);
  /* another path is refused */
  CHECK(blosc2_stdio_mmap_open(tmp_path("other"), "rb", &mm) == NULL);

  const char msg[] = "hello, mapped world!";
  CHECK_EQ(blosc2_stdio_mmap_write(msg, 1, 20, 0, s), 20);
  CHECK_EQ(mm.file_size, 20);
  CHECK_EQ(mm.mapping_size, 64);
  CHECK_MEM(mm.addr, msg, 20);
  CHECK_EQ(file_size_of(p), 20); /* the file grows with the writes */
  /* beyond the mapping: remapped to twice the file size */
  CHECK_EQ(blosc2_stdio_mmap_write(msg, 4, 5, 80, s), 5);
  CHECK_EQ(mm.file_size, 100);
  CHECK_EQ(mm.mapping_size, 200);
  CHECK_EQ(blosc2_stdio_mmap_size(s), 100);
  CHECK_MEM(mm.addr + 80, msg, 20);
  CHECK_EQ(blosc2_stdio_mmap_write(msg, 1, 0, 0, s), 0);

  void *rp = NULL;
  CHECK_EQ(blosc2_stdio_mmap_read(&rp, 1, 5, 7, s), 5);
  CHECK(rp == mm.addr + 7); /* a pointer into the mapping */
  CHECK_MEM(rp, "mappe", 5);
  CHECK_EQ(blosc2_stdio_mmap_read(&rp, 10, 10, 0, s), 10);
  CHECK(rp == mm.addr);
  CHECK_EQ(blosc2_stdio_mmap_read(&rp, 1, 101, 0, s), 0);
  CHECK(rp == NULL);
  rp = mm.addr;
  CHECK_EQ(blosc2_stdio_mmap_read(&rp, 1, 1, -1, s), 0);
  CHECK(rp == NULL);
  CHECK_EQ(blosc2_stdio_mmap_read(NULL, 1, 1, 0, s), 0);

  CHECK_EQ(blosc2_stdio_mmap_truncate(s, 50), 0);
  CHECK_EQ(mm.file_size, 50);
  CHECK_EQ(file_size_of(p), 50);
  CHECK_EQ(blosc2_stdio_mmap_truncate(s, -1), -1);
  CHECK_EQ(blosc2_stdio_mmap_read(&rp, 1, 10, 45, s), 0);
  CHECK_EQ(blosc2_stdio_mmap_close(s), 0);
  CHECK(mm.addr != NULL); /* close keeps the mapping */
  CHECK_EQ(blosc2_stdio_mmap_destroy(&mm), 0);
  CHECK(mm.addr == NULL);
  CHECK(mm.file == NULL);
  CHECK(mm.urlpath == NULL);
  CHECK_EQ(file_size_of(p), 50);
  uint8_t disk[20];
  read_file(p, disk, 20);
  CHECK_MEM(disk, msg, 20);
  remove(p);
}

static void test_mmap_modes(void) {
  const char *p = tmp_path("mmap_modes");
  uint8_t data[300];
  for (int i = 0; i < 300; i++) data[i] = (uint8_t)(i * 7);
  write_file(p, data, 300);

  /* r: mapping of the file's size, read only */
  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  void *s = blosc2_stdio_mmap_open(p, "rb", &mm);
  CHECK(s == &mm);
  if (!s) return;
  CHECK_EQ(mm.file_size, 300);
  CHECK_EQ(mm.mapping_size, 300);
  CHECK_EQ(mm.is_memory_only, false);
  CHECK_MEM(mm.addr, data, 300);
  void *rp = NULL;
  CHECK_EQ(blosc2_stdio_mmap_read(&rp, 3, 100, 0, s), 100);
  CHECK(rp == mm.addr);
  CHECK_EQ(blosc2_stdio_mmap_destroy(&mm), 0);

  /* r+: writes go to the file */
  mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "r+";
  mm.initial_mapping_size = 1000;
  s = blosc2_stdio_mmap_open(p, "rb+", &mm);
  CHECK(s == &mm);
  if (!s) return;
  CHECK_EQ(mm.file_size, 300);
  CHECK_EQ(mm.mapping_size, 1000);
  CHECK_EQ(blosc2_stdio_mmap_write("ABC", 1, 3, 10, s), 3);
  CHECK_EQ(blosc2_stdio_mmap_write("END", 1, 3, 300, s), 3);
  CHECK_EQ(mm.file_size, 303);
  CHECK_EQ(mm.mapping_size, 1000);
  CHECK_EQ(blosc2_stdio_mmap_destroy(&mm), 0);
  uint8_t disk[303];
  read_file(p, disk, 303);
  CHECK_EQ(file_size_of(p), 303);
  CHECK_MEM(disk + 10, "ABC", 3);
  CHECK_MEM(disk + 300, "END", 3);
  CHECK_MEM(disk + 13, data + 13, 287);

  /* c: changes stay in memory */
  mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "c";
  mm.initial_mapping_size = 4096;
  s = blosc2_stdio_mmap_open(p, "rb", &mm);
  CHECK(s == &mm);
  if (!s) return;
  CHECK_EQ(mm.is_memory_only, true);
  CHECK_EQ(blosc2_stdio_mmap_write("zzz", 1, 3, 0, s), 3);
  CHECK_MEM(mm.addr, "zzz", 3);
  CHECK_EQ(blosc2_stdio_mmap_truncate(s, 100), 0);
  CHECK_EQ(mm.file_size, 100);
  CHECK_EQ(blosc2_stdio_mmap_destroy(&mm), 0);
  CHECK_EQ(file_size_of(p), 303);
  read_file(p, disk, 3);
  CHECK_MEM(disk, data, 3);

  /* heap-allocated params are freed by destroy */
  blosc2_stdio_mmap *hp = malloc(sizeof *hp);
  *hp = BLOSC2_STDIO_MMAP_DEFAULTS;
  hp->needs_free = true;
  CHECK(blosc2_stdio_mmap_open(p, "rb", hp) == hp);
  CHECK_EQ(blosc2_stdio_mmap_destroy(hp), 0);
  remove(p);
}

static void test_mmap_bad_args(void) {
  const char *p = tmp_path("mmap_bad");
  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  CHECK(blosc2_stdio_mmap_open(NULL, "rb", &mm) == NULL);
  CHECK(blosc2_stdio_mmap_open(p, "rb", NULL) == NULL);
  remove(p);
  CHECK(blosc2_stdio_mmap_open(p, "rb", &mm) == NULL); /* missing file, mode r */
  CHECK(mm.addr == NULL);
  CHECK(mm.urlpath == NULL);
  mm.mode = "x";
  write_file(p, "abc", 3);
  CHECK(blosc2_stdio_mmap_open(p, "rb", &mm) == NULL);
  mm.mode = NULL;
  CHECK(blosc2_stdio_mmap_open(p, "rb", &mm) == NULL);
  CHECK_EQ(blosc2_stdio_mmap_destroy(NULL), -1);
  /* destroy of a never-opened struct reports an error */
  blosc2_stdio_mmap fresh = BLOSC2_STDIO_MMAP_DEFAULTS;
  CHECK_EQ(blosc2_stdio_mmap_destroy(&fresh), -1);
  CHECK_EQ(blosc2_stdio_mmap_close(NULL), 0);

  mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "w+";
  mm.initial_mapping_size = 16;
  void *s = blosc2_stdio_mmap_open(p, "wb", &mm);
  CHECK(s != NULL);
  if (!s) return;
  CHECK_EQ(blosc2_stdio_mmap_write(NULL, 1, 1, 0, s), 0);
  CHECK_EQ(blosc2_stdio_mmap_write("a", -1, 1, 0, s), 0);
  CHECK_EQ(blosc2_stdio_mmap_write("a", 1, 1, -1, s), 0);
  CHECK_EQ(blosc2_stdio_mmap_write("a", INT64_MAX, 2, 0, s), 0);
  CHECK_EQ(mm.file_size, 0);
  CHECK_EQ(blosc2_stdio_mmap_destroy(&mm), 0);
  remove(p);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_registry_defaults);
  RUN(test_register);
  RUN(test_stdio_roundtrip);
  RUN(test_stdio_bad_args);
  RUN(test_mmap_write_read);
  RUN(test_mmap_modes);
  RUN(test_mmap_bad_args);
  blosc2_destroy();
  return TEST_SUMMARY();
}
