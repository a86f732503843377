# m4/rtk_soname.m4 — RTK_SONAME(VAR, PKG, FALLBACK): the SONAME and Debian package of a pkg-config library.
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
