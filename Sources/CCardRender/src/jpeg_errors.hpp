// jpeg_errors.hpp — libjpeg's error handling for photo.cpp and
// compression.cpp: libjpeg reports a fatal error by calling error_exit,
// which must not return, so it jumps back to the setjmp of the call that
// failed; warnings (extraneous bytes and the like) are not errors here.
#pragma once

#include <csetjmp>
#include <cstdio>

#include <jpeglib.h>

namespace cardrender {

struct JpegErrors {
    jpeg_error_mgr base;
    std::jmp_buf jump;

    // The manager for a (de)compress struct's err field.
    jpeg_error_mgr *install() {
        jpeg_std_error(&base);
        base.error_exit = [](j_common_ptr info) { std::longjmp(reinterpret_cast<JpegErrors *>(info->err)->jump, 1); };
        base.output_message = [](j_common_ptr) {};
        return &base;
    }
};

}  // namespace cardrender
