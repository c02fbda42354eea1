/* The program of a layer check (CMakeLists.txt here): it calls nothing; what matters is that the
 * layer's whole library, linked in with --whole-archive, finds every symbol it uses below it. */
int main(void)
{
    return 0;
}
