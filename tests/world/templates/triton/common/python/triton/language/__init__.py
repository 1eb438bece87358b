"""triton.language (miniature): the names kernels import."""

float32 = "fp32"
int32 = "i32"


def program_id(axis: int) -> str:
    return f"tt.get_program_id {axis}"
