# m4/rtk_libs.m4 — how rtk links its libraries: SONAMEs for dlopen(), static archives where they exist.
# Defines RTK_<VAR>_SONAME and RTK_<VAR>_PACKAGE so a dlopen() failure can name what to install.
AC_DEFUN([RTK_SONAME], [
	AC_MSG_CHECKING([for the SONAME of $2])
	rtk_libdir=`$PKG_CONFIG --variable=libdir $2`
	rtk_soname=`objdump -p "$rtk_libdir/$2.so" 2>/dev/null | awk '/SONAME/ {print $[]2}'`
	AS_IF([test -z "$rtk_soname"], [rtk_soname=$3])
	AC_MSG_RESULT([$rtk_soname])
	rtk_real=`readlink -f "$rtk_libdir/$rtk_soname" 2>/dev/null`
	rtk_pkg=`dpkg -S "$rtk_real" 2>/dev/null | sed -n '1s/:.*//p'`
	AS_IF([test -z "$rtk_pkg"], [rtk_pkg=$2])
	AC_DEFINE_UNQUOTED([RTK_$1_SONAME], ["$rtk_soname"], [SONAME dlopen()ed for $2.])
	AC_DEFINE_UNQUOTED([RTK_$1_PACKAGE], ["$rtk_pkg"], [Debian package that provides $2 at run time.])
])

# RTK_PREFER_STATIC(VAR, PKG, LIB): when the library's static archive is installed, link it
# statically: each shared object costs start-up time, and rtk starts thousands of times a day.
AC_DEFUN([RTK_PREFER_STATIC], [
	rtk_libdir=`$PKG_CONFIG --variable=libdir $2`
	AC_MSG_CHECKING([whether to link $2 statically])
	AS_IF([test "x$enable_static_deps" != xno && test -f "$rtk_libdir/lib$3.a"],
		[$1_LIBS="-Wl,-Bstatic -l$3 -Wl,-Bdynamic"; AC_MSG_RESULT([yes])],
		[AC_MSG_RESULT([no])])
])
